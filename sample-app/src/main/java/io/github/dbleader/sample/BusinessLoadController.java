package io.github.dbleader.sample;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Test hook, off unless {@code sample.business-load-endpoint=true}: slow business queries
 * that exhaust the application's connection pool. {@code POST
 * /api/business-load?connections=2&seconds=6} holds that many connections of the
 * application's pool with {@code SELECT SLEEP(seconds)} (MySQL and MariaDB) on background
 * threads and answers at once. Shows that renewals do not depend on the application's
 * pool (docs/explanation/invariants.md, I8).
 */
@RestController
@ConditionalOnBooleanProperty("sample.business-load-endpoint")
public class BusinessLoadController {

	private static final Logger logger = LoggerFactory.getLogger(BusinessLoadController.class);

	private final JdbcTemplate jdbc;

	public BusinessLoadController(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@PostMapping("/api/business-load")
	public BusinessLoad hold(@RequestParam int connections, @RequestParam int seconds) {
		if (connections < 1 || connections > 50 || seconds < 1 || seconds > 60) {
			throw new IllegalArgumentException("connections must be 1 to 50 and seconds 1 to 60");
		}
		for (int i = 1; i <= connections; i++) {
			Thread thread = new Thread(() -> sleepInDatabase(seconds), "business-load-" + i);
			thread.setDaemon(true);
			thread.start();
		}
		return new BusinessLoad(connections, seconds);
	}

	private void sleepInDatabase(int seconds) {
		try {
			this.jdbc.queryForObject("SELECT SLEEP(?)", Integer.class, seconds);
		}
		catch (DataAccessException ex) {
			logger.info("Business load query failed: {}", ex.toString());
		}
	}

	/**
	 * The answer of {@code POST /api/business-load}.
	 *
	 * @param connections connections held
	 * @param seconds for how long
	 */
	public record BusinessLoad(int connections, int seconds) {
	}

}
