package io.github.dbleader.election;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Validation of {@link ElectionSettings}: values that would let a belief outlive the
 * lease or leave no room for a retried renewal are refused with a message that names
 * them.
 */
class ElectionSettingsTests {

	private static final Duration S1 = Duration.ofSeconds(1);

	@Test
	void defaults() {
		ElectionSettings settings = ElectionSettings.defaults();
		assertThat(settings.leaseDuration()).isEqualTo(Duration.ofSeconds(10));
		assertThat(settings.renewInterval()).isEqualTo(Duration.ofSeconds(2));
		assertThat(settings.guard()).isEqualTo(Duration.ofSeconds(2));
		assertThat(settings.statementTimeout()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void shortLeaseWithDerivedGuardFits() {
		ElectionSettings settings = ElectionSettings.of(Duration.ofSeconds(3), S1);
		assertThat(settings.guard()).isEqualTo(Duration.ofMillis(600));
		assertThat(settings.statementTimeout()).isEqualTo(Duration.ofMillis(500));
	}

	@Test
	void renewIntervalNotShorterThanLeaseIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionSettings.of(S1, S1))
			.withMessageContaining("renewInterval (PT1S)")
			.withMessageContaining("at most half of leaseDuration minus guard");
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionSettings.of(S1, Duration.ofSeconds(5)));
	}

	@Test
	void renewIntervalThatLeavesNoRoomForARetryIsRefused() {
		// L - G = 8s; R = 5s would leave a single attempt before the belief ends.
		assertThatIllegalArgumentException().isThrownBy(
				() -> new ElectionSettings(Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(2), S1))
			.withMessageContaining("renewInterval (PT5S)");
	}

	@Test
	void zeroAndNegativeDurationsAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionSettings.of(Duration.ZERO, S1))
			.withMessage("leaseDuration must be positive but was PT0S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ElectionSettings.of(Duration.ofSeconds(10), Duration.ZERO))
			.withMessageContaining("renewInterval must be positive");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ElectionSettings.of(Duration.ofSeconds(10), Duration.ofSeconds(-1)))
			.withMessageContaining("renewInterval must be positive but was PT-1S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ElectionSettings(Duration.ofSeconds(10), S1, Duration.ofSeconds(-2), S1))
			.withMessageContaining("guard must be positive");
	}

	@Test
	void guardMustBeShorterThanTheLease() {
		assertThatIllegalArgumentException().isThrownBy(
				() -> new ElectionSettings(Duration.ofSeconds(10), S1, Duration.ofSeconds(10), Duration.ofMillis(500)))
			.withMessageContaining("guard (PT10S) must be shorter than leaseDuration (PT10S)");
	}

	@Test
	void statementTimeoutMustBeShorterThanTheRenewInterval() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ElectionSettings(Duration.ofSeconds(10), S1, Duration.ofSeconds(2), S1))
			.withMessageContaining("statementTimeout (PT1S) must be shorter than renewInterval (PT1S)");
	}

	@Test
	void aBrokenRuleNamesTheSettingItsValueAndTheBoundSoThatCallersNeedNotCheckAgain() {
		assertThatExceptionOfType(InvalidElectionSettingsException.class)
			.isThrownBy(() -> new ElectionSettings(Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(2),
					Duration.ofSeconds(1)))
			.satisfies((ex) -> {
				assertThat(ex.setting()).isEqualTo("renewInterval");
				assertThat(ex.value()).isEqualTo(Duration.ofSeconds(5));
				assertThat(ex.rule())
					.isEqualTo(InvalidElectionSettingsException.Rule.RENEW_INTERVAL_AT_MOST_HALF_THE_BELIEF);
				assertThat(ex.bound()).isEqualTo(Duration.ofSeconds(4));
			});
		assertThatExceptionOfType(InvalidElectionSettingsException.class)
			.isThrownBy(() -> new ElectionSettings(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofSeconds(2),
					Duration.ofSeconds(2)))
			.satisfies((ex) -> {
				assertThat(ex.setting()).isEqualTo("statementTimeout");
				assertThat(ex.rule())
					.isEqualTo(InvalidElectionSettingsException.Rule.STATEMENT_TIMEOUT_SHORTER_THAN_RENEW_INTERVAL);
				assertThat(ex.bound()).isEqualTo(Duration.ofSeconds(2));
			});
	}

}
