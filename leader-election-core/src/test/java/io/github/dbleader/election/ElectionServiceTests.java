package io.github.dbleader.election;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Input validation of {@link ElectionService}: ids that do not fit the lease table are
 * refused before anything is written.
 */
class ElectionServiceTests {

	private final InMemoryLeaseRepository repository = new InMemoryLeaseRepository();

	@Test
	void nodeIdLongerThanTheColumnIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ElectionService(this.repository, ElectionSettings.defaults(), "n".repeat(256),
					LeadershipListener.NONE))
			.withMessageContaining("node id")
			.withMessageContaining("at most 255");
		assertThat(this.repository.statements()).isEmpty();
	}

	@Test
	void blankNodeIdIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(
				() -> new ElectionService(this.repository, ElectionSettings.defaults(), " ", LeadershipListener.NONE))
			.withMessage("node id must not be blank");
	}

	@Test
	void electionNameLongerThanTheColumnIsRefused() {
		ElectionService service = new ElectionService(this.repository, ElectionSettings.defaults(), "a",
				LeadershipListener.NONE);
		assertThatIllegalArgumentException().isThrownBy(() -> service.election("e".repeat(129)))
			.withMessageContaining("election name")
			.withMessageContaining("at most 128");
		assertThat(service.elections()).isEmpty();
		assertThat(this.repository.statements()).isEmpty();
	}

	@Test
	void electionNamesOfClusterLocksAreRefused() {
		ElectionService service = new ElectionService(this.repository, ElectionSettings.defaults(), "a",
				LeadershipListener.NONE);
		assertThatIllegalArgumentException().isThrownBy(() -> service.election("lock:nightly-report"))
			.withMessageContaining("must not start with 'lock:'");
		assertThat(service.elections()).isEmpty();
	}

	@Test
	void electionNamesOfPartitionGroupsAreReservedForThem() {
		ElectionService service = new ElectionService(this.repository, ElectionSettings.defaults(), "a",
				LeadershipListener.NONE);
		assertThatIllegalArgumentException().isThrownBy(() -> service.election("partition:orders:0"))
			.withMessageContaining("must not start with 'partition:'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> service.partitionElection("orders:0", TakeOverPolicy.ALWAYS))
			.withMessageContaining("must start with 'partition:'");
		assertThat(service.elections()).isEmpty();
		Election partition = service.partitionElection("partition:orders:0", TakeOverPolicy.ALWAYS);
		assertThat(service.elections()).containsExactly(partition);
	}

	@Test
	void electionsAreCreatedOnFirstUseAndNothingIsWrittenBeforeStart() {
		ElectionService service = new ElectionService(this.repository, ElectionSettings.defaults(), "a",
				LeadershipListener.NONE);
		Election first = service.election("jobs");
		assertThat(service.election("jobs")).isSameAs(first);
		assertThat(first.isLeader()).isFalse();
		assertThat(this.repository.statements()).isEmpty();
	}

}
