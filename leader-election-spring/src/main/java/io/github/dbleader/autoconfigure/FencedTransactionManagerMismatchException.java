package io.github.dbleader.autoconfigure;

/**
 * Thrown at start-up when the transaction manager that fenced transactions would use
 * manages another {@code DataSource} than the one the election runs on: the fence row
 * lives with the leases, so such a transaction would fence nothing.
 * {@code FencedTransactionManagerMismatchFailureAnalyzer} tells the user what to change.
 */
public class FencedTransactionManagerMismatchException extends IllegalStateException {

	private final String transactionManager;

	private final String managedDataSource;

	private final String electionDataSource;

	/**
	 * Create an exception.
	 * @param transactionManager the transaction manager, e.g. its bean name
	 * @param managedDataSource the data source it manages
	 * @param electionDataSource the data source of the election
	 */
	public FencedTransactionManagerMismatchException(String transactionManager, String managedDataSource,
			String electionDataSource) {
		super("Fenced transactions of leader election would run on transaction manager " + transactionManager
				+ ", which manages DataSource " + managedDataSource + ", but the election runs on DataSource "
				+ electionDataSource);
		this.transactionManager = transactionManager;
		this.managedDataSource = managedDataSource;
		this.electionDataSource = electionDataSource;
	}

	/**
	 * Return the transaction manager that fenced transactions would use.
	 * @return its bean name, quoted, or a description
	 */
	public String getTransactionManager() {
		return this.transactionManager;
	}

	/**
	 * Return the data source that the transaction manager manages.
	 * @return its bean name, quoted, or a description
	 */
	public String getManagedDataSource() {
		return this.managedDataSource;
	}

	/**
	 * Return the data source that the election runs on.
	 * @return its bean name, quoted, or a description
	 */
	public String getElectionDataSource() {
		return this.electionDataSource;
	}

}
