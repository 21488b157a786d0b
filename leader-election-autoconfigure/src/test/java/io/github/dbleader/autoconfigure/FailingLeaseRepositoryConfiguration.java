package io.github.dbleader.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;

import org.springframework.aop.MethodBeforeAdvice;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * A lease repository on H2 whose every call throws as an unreachable database's does
 * while {@link #failing()} is set.
 */
@Configuration(proxyBeanMethods = false)
public class FailingLeaseRepositoryConfiguration {

	private final AtomicBoolean failing = new AtomicBoolean();

	/**
	 * Whether the repository fails.
	 * @return the switch
	 */
	public AtomicBoolean failing() {
		return this.failing;
	}

	@Bean
	LeaseRepository failingLeaseRepository(DataSource dataSource) {
		LeaseRepository real = new JdbcLeaseRepository(dataSource, SqlDialect.H2, LeaseTables.defaults(),
				Duration.ofMillis(100));
		ProxyFactory factory = new ProxyFactory(real);
		factory.addAdvice((MethodBeforeAdvice) (method, args, target) -> {
			if (this.failing.get()) {
				throw new DataAccessResourceFailureException("database unreachable (simulated)");
			}
		});
		return (LeaseRepository) factory.getProxy();
	}

}
