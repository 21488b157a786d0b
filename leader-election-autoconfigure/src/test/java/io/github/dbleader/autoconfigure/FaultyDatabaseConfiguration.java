package io.github.dbleader.autoconfigure;

import java.time.Duration;

import javax.sql.DataSource;

import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.QueryTimeoutException;

/**
 * A {@link LeaseRepository} on the embedded H2 database that a test can turn into a
 * database that does not answer: every statement, the heartbeat's and the endpoint's,
 * then either times out after the statement timeout ({@link Fault#TIMEOUT}, a frozen
 * server with the driver's timeouts working) or hangs until the fault ends
 * ({@link Fault#HANG}, a driver that cannot time out, or a wait for a pool connection
 * behind stuck statements). End the fault before the context closes ({@link #restore()}).
 */
@Configuration(proxyBeanMethods = false)
public class FaultyDatabaseConfiguration {

	private final Object monitor = new Object();

	/** Guarded by {@code monitor}. */
	private Fault fault = Fault.NONE;

	@Bean
	LeaseRepository faultyLeaseRepository(DataSource dataSource, LeaderElectionProperties properties) {
		Duration statementTimeout = properties.determineElectionSettings().statementTimeout();
		return faulty(new JdbcLeaseRepository(dataSource, SqlDialect.H2, LeaseTables.defaults(), statementTimeout),
				statementTimeout);
	}

	/**
	 * Another repository on the same database, whose statements this fault holds up too.
	 * @param <T> the repository's type
	 * @param repository the repository
	 * @param statementTimeout its statement timeout
	 * @return the repository behind the fault
	 */
	@SuppressWarnings("unchecked")
	public <T> T faulty(T repository, Duration statementTimeout) {
		ProxyFactory factory = new ProxyFactory(repository);
		factory.addAdvice((MethodInterceptor) (invocation) -> {
			awaitAnswer(statementTimeout);
			return invocation.proceed();
		});
		return (T) factory.getProxy();
	}

	/**
	 * Start a fault.
	 * @param fault the fault
	 */
	public void start(Fault fault) {
		synchronized (this.monitor) {
			this.fault = fault;
			this.monitor.notifyAll();
		}
	}

	/** End the fault: statements that hang go on at once. */
	public void restore() {
		start(Fault.NONE);
	}

	private void awaitAnswer(Duration statementTimeout) throws InterruptedException {
		synchronized (this.monitor) {
			long deadline = System.nanoTime() + statementTimeout.toNanos();
			while (this.fault != Fault.NONE) {
				long left = deadline - System.nanoTime();
				if (this.fault == Fault.TIMEOUT && left <= 0) {
					throw new QueryTimeoutException("statement timed out (simulated)");
				}
				// Woken when the fault changes; a timeout waits no longer than the
				// statement's.
				this.monitor.wait((this.fault == Fault.TIMEOUT) ? Math.max(1, left / 1_000_000) : 0);
			}
		}
	}

	/** What the database does. */
	public enum Fault {

		/** Every statement runs. */
		NONE,

		/** Every statement fails after the statement timeout. */
		TIMEOUT,

		/** Every statement waits until the fault ends. */
		HANG

	}

}
