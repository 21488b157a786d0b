package io.github.dbleader.benchmarks.harness;

/**
 * How leadership is taken from the node that runs the job in a failover trial.
 */
enum FaultKind {

	/** {@code kill -9} of the node: nothing is released. */
	KILL("kill -9"),

	/** SIGTERM of the node: a graceful shutdown. */
	TERM("SIGTERM"),

	/**
	 * An operator's forced hand-over to a named node
	 * ({@code POST /actuator/leader/default}).
	 */
	FORCED("forced hand-over");

	private final String label;

	FaultKind(String label) {
		this.label = label;
	}

	String label() {
		return this.label;
	}

}
