package io.github.dbleader.benchmarks.harness;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A section of {@code RESULTS.md} between two HTML comment markers, so that a run of one
 * benchmark replaces only its section and the other runs keep it.
 *
 * @param begin the opening marker
 * @param end the closing marker
 */
record MarkedSection(String begin, String end) {

	private Pattern pattern() {
		return Pattern.compile(Pattern.quote(this.begin) + ".*?" + Pattern.quote(this.end) + "\n?", Pattern.DOTALL);
	}

	/**
	 * Put a section into a report: in place of its previous version, or at the end.
	 * @param report the report's text (may be empty)
	 * @param section the section, markers included
	 * @return the new text
	 */
	String splice(String report, String section) {
		Matcher matcher = pattern().matcher(report);
		if (matcher.find()) {
			return report.substring(0, matcher.start()) + section + report.substring(matcher.end());
		}
		return report + (report.isEmpty() || report.endsWith("\n\n") ? "" : "\n") + section;
	}

	/**
	 * The section in a report, markers included, or empty if it has none.
	 * @param report the report's text
	 * @return the section
	 */
	String find(String report) {
		Matcher matcher = pattern().matcher(report);
		return matcher.find() ? matcher.group() : "";
	}

}
