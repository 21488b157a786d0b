package io.github.dbleader.test;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The output of a {@link NodeProcess}, a file that grows while the process runs, read
 * from a position on: {@link #mark()} remembers the current end, so that a test reads
 * only what the process logged after a fault.
 */
public final class ProcessLog {

	private final Path file;

	ProcessLog(Path file) {
		this.file = file;
	}

	/**
	 * @return the file the process writes its standard output and error to
	 */
	public Path file() {
		return this.file;
	}

	/**
	 * @return the current end of the log, to read from later
	 */
	public long mark() {
		try {
			return Files.exists(this.file) ? Files.size(this.file) : 0;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The lines logged from a position on; the last one may be incomplete.
	 * @param from a {@link #mark()}, 0 for the whole log
	 * @return the lines
	 */
	public List<String> lines(long from) {
		if (!Files.exists(this.file)) {
			return List.of();
		}
		// Reads only what follows the position: some callers poll every millisecond.
		try (RandomAccessFile reader = new RandomAccessFile(this.file.toFile(), "r")) {
			long length = reader.length();
			if (length <= from) {
				return List.of();
			}
			byte[] bytes = new byte[Math.toIntExact(length - from)];
			reader.seek(from);
			reader.readFully(bytes);
			return new String(bytes, StandardCharsets.UTF_8).lines().toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Whether a line logged from a position on contains the text.
	 * @param from a {@link #mark()}, 0 for the whole log
	 * @param text the text
	 * @return whether it appeared
	 */
	public boolean containsSince(long from, String text) {
		return lines(from).stream().anyMatch((line) -> line.contains(text));
	}

	/**
	 * Whether any line of the log contains the text.
	 * @param text the text
	 * @return whether it appeared
	 */
	public boolean contains(String text) {
		return containsSince(0, text);
	}

	/**
	 * Count the lines of the whole log that contain the text.
	 * @param text the text
	 * @return the number of lines
	 */
	public long count(String text) {
		return lines(0).stream().filter((line) -> line.contains(text)).count();
	}

	/**
	 * The last lines, for failure messages.
	 * @param count how many
	 * @return the lines joined
	 */
	public String tail(int count) {
		List<String> lines = lines(0);
		return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
	}

	@Override
	public String toString() {
		return this.file.toString();
	}

}
