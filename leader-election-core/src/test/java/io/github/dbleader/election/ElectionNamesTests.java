package io.github.dbleader.election;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The rules of the names the lease table holds, in their one place.
 */
class ElectionNamesTests {

	@Test
	void nodeIdsAreOneTo255CharactersNotEndingWithASpace() {
		assertThat(ElectionNames.nodeId("n".repeat(255))).hasSize(255);
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionNames.nodeId("n".repeat(256)))
			.withMessage("node id '" + "n".repeat(256) + "' is 256 characters long; at most 255 are allowed");
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionNames.nodeId(" "))
			.withMessage("node id must not be blank");
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionNames.nodeId("a "))
			.withMessageContaining("must not end with a space");
	}

	@Test
	void electionNamesMayNotTakeThePrefixesOfLocksAndPartitions() {
		assertThat(ElectionNames.election("jobs:lock:x")).isEqualTo("jobs:lock:x");
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionNames.election("lock:x"))
			.withMessageContaining("must not start with 'lock:'");
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionNames.election("partition:g:1"))
			.withMessageContaining("must not start with 'partition:'");
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionNames.election("e".repeat(129)))
			.withMessageContaining("at most 128");
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionNames.partitionElection("orders:1"))
			.withMessageContaining("must start with 'partition:'");
	}

	@Test
	void lockKeysHoldThePrefixWithinTheKeyColumn() {
		String longest = "l".repeat(ElectionNames.MAX_LOCK_NAME_LENGTH);
		assertThat(ElectionNames.lockKey(longest)).hasSize(ElectionNames.MAX_ELECTION_NAME_LENGTH).startsWith("lock:");
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionNames.lockKey(longest + "l"))
			.withMessageContaining("lock name")
			.withMessageContaining("at most " + ElectionNames.MAX_LOCK_NAME_LENGTH);
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionNames.lockKey("l "))
			.withMessageContaining("must not end with a space");
	}

	@Test
	void partitionElectionsNameTheirGroupAndNumber() {
		String election = ElectionNames.partitionElection("orders", 7);
		assertThat(election).isEqualTo("partition:orders:7");
		assertThat(ElectionNames.groupOf(election)).isEqualTo("orders");
		assertThat(ElectionNames.groupOf("partition:orders:x")).isNull();
		assertThat(ElectionNames.groupOf("partition::1")).isNull();
		assertThat(ElectionNames.groupOf("orders:1")).isNull();
		assertThat(ElectionNames.group("a.b_c-1")).isEqualTo("a.b_c-1");
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionNames.group("a:b"))
			.withMessageContaining("letters, digits");
		assertThatIllegalArgumentException().isThrownBy(() -> ElectionNames.group("g".repeat(101)))
			.withMessageContaining("1 to 100");
	}

}
