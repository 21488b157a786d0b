package io.github.dbleader.election.jdbc;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A statement whose text lists a variable number of rows: the text is rendered once, with
 * a slot for each list ({@code {names}}, {@code {pairs}}, ...), and each statement sent
 * expands every slot for its number of rows: the slot's unit once per row, joined by its
 * separator. So {@code election_name IN ({names})} with the unit {@code ?} and the
 * separator {@code , } becomes {@code election_name IN (?, ?, ?)} for three rows.
 */
final class SqlTemplate {

	/** One {@code ?} per row: a list of keys. */
	static final Slot NAMES = new Slot("names", "?", ", ");

	/** One {@code (?, ?)} per row: a list of (key, version or term) pairs. */
	static final Slot PAIRS = new Slot("pairs", "(?, ?)", ", ");

	private final String text;

	private final Map<String, Slot> slots = new LinkedHashMap<>();

	/**
	 * Create a template.
	 * @param text the statement, with each slot written as {@code {name}}
	 * @param slots the slots it has
	 */
	SqlTemplate(String text, Slot... slots) {
		this.text = Objects.requireNonNull(text, "text must not be null");
		for (Slot slot : slots) {
			if (!text.contains(slot.marker())) {
				throw new IllegalArgumentException("No slot " + slot.marker() + " in " + text);
			}
			this.slots.put(slot.name(), slot);
		}
	}

	/**
	 * The statement for a number of rows.
	 * @param rows how many rows each slot lists, at least one
	 * @return the statement
	 */
	String render(int rows) {
		if (rows < 1) {
			throw new IllegalArgumentException("A statement lists at least one row, not " + rows);
		}
		String rendered = this.text;
		for (Slot slot : this.slots.values()) {
			rendered = rendered.replace(slot.marker(), slot.expand(rows));
		}
		return rendered;
	}

	/**
	 * @return the text with its slots as {@code {name}}
	 */
	String text() {
		return this.text;
	}

	/**
	 * @return the slots, in the order they were given
	 */
	Iterable<Slot> slots() {
		return this.slots.values();
	}

	@Override
	public String toString() {
		return this.text;
	}

	/**
	 * A list in a template.
	 *
	 * @param name its name, written {@code {name}} in the text
	 * @param unit the SQL of one row
	 * @param separator what goes between two rows
	 */
	record Slot(String name, String unit, String separator) {

		String marker() {
			return "{" + this.name + "}";
		}

		String expand(int rows) {
			return this.unit + (this.separator + this.unit).repeat(rows - 1);
		}

	}

}
