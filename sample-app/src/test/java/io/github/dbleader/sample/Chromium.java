package io.github.dbleader.sample;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A real headless Chromium driven through its chromedriver, both given by path (Debian's
 * {@code chromium} and {@code chromium-driver} by default;
 * {@code LEADER_ELECTION_TEST_CHROMIUM} and {@code LEADER_ELECTION_TEST_CHROMEDRIVER}
 * override them). Selenium gets both paths, so Selenium Manager never looks for a browser
 * or driver on the network.
 *
 * <p>
 * As an {@link ExecutionCondition}: a test runs when both are installed; when they are
 * not, it is disabled with the reason (printed too), unless
 * {@code LEADER_ELECTION_TEST_REQUIRE_BROWSER=true} (set by {@code .ci/run}), in which
 * case it runs and fails.
 */
final class Chromium implements ExecutionCondition {

	static final String REQUIRE_BROWSER = "LEADER_ELECTION_TEST_REQUIRE_BROWSER";

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		String missing = missing();
		if (missing == null) {
			return ConditionEvaluationResult.enabled("Chromium at " + browser() + ", chromedriver at " + driver());
		}
		if (Boolean.parseBoolean(System.getenv(REQUIRE_BROWSER))) {
			return ConditionEvaluationResult.enabled(REQUIRE_BROWSER + "=true: " + missing + ", so the test fails");
		}
		String reason = "Browser test disabled: " + missing + ". Install Debian's chromium and chromium-driver "
				+ "(apt-get install chromium chromium-driver), or set LEADER_ELECTION_TEST_CHROMIUM and "
				+ "LEADER_ELECTION_TEST_CHROMEDRIVER; " + REQUIRE_BROWSER + "=true (as in CI) fails instead";
		System.err.println("[" + context.getDisplayName() + "] " + reason);
		return ConditionEvaluationResult.disabled(reason);
	}

	/**
	 * Start a headless browser with a fresh profile in the given directory.
	 * @param profile an empty directory for the browser's profile
	 * @return the driver; quit it after the test
	 * @throws IllegalStateException if Chromium or chromedriver is missing
	 */
	static ChromeDriver start(Path profile) {
		String missing = missing();
		if (missing != null) {
			throw new IllegalStateException("Cannot run the browser test: " + missing
					+ ". Install Debian's chromium and chromium-driver (.ci/run does).");
		}
		ChromeOptions options = new ChromeOptions();
		options.setBinary(browser().toFile());
		options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
				"--user-data-dir=" + profile.toAbsolutePath(), "--window-size=1280,1024");
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver().toFile())
			.usingAnyFreePort()
			.build();
		return new ChromeDriver(service, options);
	}

	/**
	 * Delete a profile directory after the browser quit.
	 * @param profile the directory
	 */
	static void deleteProfile(Path profile) {
		try (Stream<Path> files = Files.walk(profile)) {
			files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String missing() {
		if (!Files.isExecutable(browser())) {
			return "no Chromium at " + browser();
		}
		if (!Files.isExecutable(driver())) {
			return "no chromedriver at " + driver();
		}
		return null;
	}

	static Path browser() {
		return path("LEADER_ELECTION_TEST_CHROMIUM", "/usr/bin/chromium");
	}

	static Path driver() {
		return path("LEADER_ELECTION_TEST_CHROMEDRIVER", "/usr/bin/chromedriver");
	}

	private static Path path(String variable, String fallback) {
		String value = System.getenv(variable);
		return Path.of((value != null && !value.isEmpty()) ? value : fallback);
	}

}
