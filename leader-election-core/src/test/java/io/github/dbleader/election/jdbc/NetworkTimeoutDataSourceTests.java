package io.github.dbleader.election.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.Executor;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.mockito.BDDMockito.willThrow;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;

/**
 * Tests for {@link NetworkTimeoutDataSource}; NetworkTimeoutDataSourceIntegrationTests
 * runs it on the real drivers.
 */
class NetworkTimeoutDataSourceTests {

	private final DataSource pool = mock(DataSource.class);

	private final Connection connection = mock(Connection.class);

	private final NetworkTimeoutDataSource dataSource = new NetworkTimeoutDataSource(this.pool, Duration.ofMillis(500));

	NetworkTimeoutDataSourceTests() throws SQLException {
		given(this.pool.getConnection()).willReturn(this.connection);
		given(this.connection.getNetworkTimeout()).willReturn(30_000);
	}

	@Test
	void closeRestoresTheNetworkTimeoutBeforeTheConnectionGoesBack() throws SQLException {
		Connection handed = this.dataSource.getConnection();
		then(this.connection).should().setNetworkTimeout(any(Executor.class), eq(500));
		assertThat(DataSourceUtils.getTargetConnection(handed)).isSameAs(this.connection);
		handed.close();
		handed.close();
		var order = inOrder(this.connection);
		order.verify(this.connection).setNetworkTimeout(any(Executor.class), eq(30_000));
		order.verify(this.connection).close();
		order.verifyNoMoreInteractions();
	}

	@Test
	void connectionWhoseTimeoutCannotBeRestoredIsAbortedRatherThanHandedOnWithTheElectionsTimeout()
			throws SQLException {
		Connection handed = this.dataSource.getConnection();
		willThrow(new SQLNonTransientConnectionException("connection is closed")).given(this.connection)
			.setNetworkTimeout(any(Executor.class), eq(30_000));
		handed.close();
		var order = inOrder(this.connection);
		order.verify(this.connection).abort(any(Executor.class));
		// The pool gets its connection back, and finds it broken.
		order.verify(this.connection).close();
	}

	@Test
	void connectionOfADriverWithoutNetworkTimeoutsIsHandedAsItIs() throws SQLException {
		willThrow(new SQLFeatureNotSupportedException()).given(this.connection)
			.setNetworkTimeout(any(Executor.class), eq(500));
		assertThat(this.dataSource.getConnection()).isSameAs(this.connection);
	}

	@Test
	void connectionWhoseTimeoutCannotBeSetGoesBackToThePool() throws SQLException {
		willThrow(new SQLNonTransientConnectionException("connection is closed")).given(this.connection)
			.setNetworkTimeout(any(Executor.class), eq(500));
		assertThatExceptionOfType(SQLException.class).isThrownBy(this.dataSource::getConnection);
		then(this.connection).should().close();
	}

}
