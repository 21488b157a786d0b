package io.github.dbleader.sample;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

import javax.sql.DataSource;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.stereotype.Component;

/**
 * The {@code db} health indicator, in place of Spring Boot's (which backs off for a bean
 * of this name). Boot's asks the driver whether a connection is valid without a time
 * limit ({@code Connection.isValid(0)}), so that {@code /actuator/health} as a whole
 * hangs while the database server is frozen or cut off. This one gives the driver one
 * second; the wait for a connection is bounded by
 * {@code spring.datasource.hikari.connection-timeout}.
 */
@Component("dbHealthIndicator")
class DatabaseHealthIndicator implements HealthIndicator {

	private static final Duration VALIDATION_TIMEOUT = Duration.ofSeconds(1);

	private final DataSource dataSource;

	DatabaseHealthIndicator(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	@Override
	public Health health() {
		Health.Builder health = Health.unknown();
		try (Connection connection = this.dataSource.getConnection()) {
			health.withDetail("database", connection.getMetaData().getDatabaseProductName());
			health.status(connection.isValid((int) VALIDATION_TIMEOUT.toSeconds()) ? Status.UP : Status.DOWN);
		}
		catch (SQLException | RuntimeException ex) {
			health.down(ex);
		}
		return health.withDetail("validationQuery", "isValid(" + VALIDATION_TIMEOUT.toSeconds() + ")").build();
	}

}
