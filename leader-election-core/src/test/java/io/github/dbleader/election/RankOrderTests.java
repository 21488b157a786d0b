package io.github.dbleader.election;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order of ranks: as versions compare.
 */
class RankOrderTests {

	@Test
	void ranksCompareAsVersions() {
		List<String> ranks = new ArrayList<>(
				List.of("1.10.0", "1.9.2", "", "1.2", "1.2-SNAPSHOT", "1.2.1", "1.2-rc1", "2", "1.02.3", "1.2.0.1"));
		ranks.sort(RankOrder.INSTANCE);
		assertThat(ranks).containsExactly("", "1.2-rc1", "1.2-SNAPSHOT", "1.2", "1.2.0.1", "1.2.1", "1.02.3", "1.9.2",
				"1.10.0", "2");
	}

	@Test
	void equalRanksAndUnknownHoldersAreNotOutranked() {
		assertThat(RankOrder.INSTANCE.outranks("1.0", "1.0")).isFalse();
		assertThat(RankOrder.INSTANCE.outranks("1.0", "1.0.0")).isFalse();
		assertThat(RankOrder.INSTANCE.outranks("1.0.0", "1.0")).isFalse();
		assertThat(RankOrder.INSTANCE.outranks("", "")).isFalse();
		assertThat(RankOrder.INSTANCE.outranks("9", null)).isFalse();
		assertThat(RankOrder.INSTANCE.outranks("1.0.1", "1.0")).isTrue();
		assertThat(RankOrder.INSTANCE.outranks("1.0", "")).isTrue();
	}

	@Test
	void textPartsCompareIgnoringCaseAndNumbersWithoutLeadingZeros() {
		assertThat(RankOrder.INSTANCE.compare("1.0-RC2", "1.0-rc2")).isZero();
		assertThat(RankOrder.INSTANCE.compare("1.007", "1.7")).isZero();
		assertThat(RankOrder.INSTANCE.compare("1.0-beta", "1.0-alpha")).isPositive();
		assertThat(RankOrder.INSTANCE.compare("1.0.beta", "1.0.0")).isNegative();
		assertThat(RankOrder.INSTANCE.compare("100000000000000000000", "99999999999999999999")).isPositive();
	}

}
