package io.github.dbleader.election;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

/**
 * The lines one class logs while it is open, from {@code DEBUG} up; closing it restores
 * the logger.
 */
public final class CapturedLog implements AutoCloseable {

	private final Logger logger;

	private final Level level;

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private CapturedLog(Class<?> type) {
		this.logger = (Logger) LoggerFactory.getLogger(type);
		this.level = this.logger.getLevel();
		this.logger.setLevel(Level.DEBUG);
		this.appender.start();
		this.logger.addAppender(this.appender);
	}

	/**
	 * Start capturing what a class logs.
	 * @param type the class whose logger to capture
	 * @return the capture, to close
	 */
	public static CapturedLog of(Class<?> type) {
		return new CapturedLog(type);
	}

	/**
	 * @return every line captured so far
	 */
	public List<ILoggingEvent> events() {
		return List.copyOf(this.appender.list);
	}

	/**
	 * @param level a level
	 * @return the messages captured at that level, in order
	 */
	public List<String> at(Level level) {
		return events().stream()
			.filter((event) -> event.getLevel() == level)
			.map(ILoggingEvent::getFormattedMessage)
			.toList();
	}

	@Override
	public void close() {
		this.logger.detachAppender(this.appender);
		this.logger.setLevel(this.level);
	}

}
