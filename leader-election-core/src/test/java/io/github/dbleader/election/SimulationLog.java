package io.github.dbleader.election;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * The WARN lines the core logs while a {@link Simulation} runs on this thread, handed to
 * that simulation, whose checker asks of every election left without a leader for long
 * whether a line said why. Installed once on the core's logger; each simulation registers
 * itself for its thread.
 */
final class SimulationLog extends AppenderBase<ILoggingEvent> {

	private static final ThreadLocal<@Nullable Simulation> current = new ThreadLocal<>();

	private static final Object installed = install();

	private SimulationLog() {
	}

	private static Object install() {
		Logger core = (Logger) LoggerFactory.getLogger("io.github.dbleader.election");
		SimulationLog appender = new SimulationLog();
		appender.setContext(core.getLoggerContext());
		appender.setName("simulation");
		appender.start();
		core.addAppender(appender);
		return appender;
	}

	/**
	 * Hand the WARN lines logged on this thread from now on to a simulation.
	 * @param simulation the simulation this thread runs
	 */
	static void register(Simulation simulation) {
		current.set(simulation);
		if (installed == null) {
			throw new IllegalStateException("not installed");
		}
	}

	@Override
	protected void append(ILoggingEvent event) {
		Simulation simulation = current.get();
		if (simulation != null && event.getLevel().isGreaterOrEqual(Level.WARN)) {
			simulation.warned(event.getFormattedMessage());
		}
	}

}
