package io.github.dbleader.shedlock;

import java.util.TimeZone;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link ShedLockTable}.
 */
class ShedLockTableTests {

	@Test
	void defaultsAreShedLocks() {
		assertThat(ShedLockTable.of("shedlock"))
			.isEqualTo(new ShedLockTable("shedlock", "name", "lock_until", "locked_at", "locked_by", false, null));
		assertThat(ShedLockTable.of("shedlock").usingDbTime().useDbTime()).isTrue();
	}

	@Test
	void acceptsPlainAndSchemaQualifiedNamesOnly() {
		assertThat(ShedLockTable.of("jobs.shedlock").tableName()).isEqualTo("jobs.shedlock");
		assertThatIllegalArgumentException().isThrownBy(() -> ShedLockTable.of("shedlock; DROP TABLE x"))
			.withMessageContaining("plain identifier");
		assertThatIllegalArgumentException().isThrownBy(() -> ShedLockTable.of("a.b.c"));
		assertThatIllegalArgumentException().isThrownBy(() -> ShedLockTable.of(""));
		assertThatIllegalArgumentException()
			.isThrownBy(
					() -> new ShedLockTable("shedlock", "name", "lock until", "locked_at", "locked_by", false, null))
			.withMessageContaining("lockUntilColumn");
	}

	@Test
	void refusesDatabaseTimeWithATimeZoneAsShedLockDoes() {
		assertThatIllegalArgumentException().isThrownBy(() -> new ShedLockTable("shedlock", "name", "lock_until",
				"locked_at", "locked_by", true, TimeZone.getTimeZone("UTC")));
	}

}
