package io.github.dbleader.election.partition;

import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every {@link PartitionPins} does, written against the interface alone: the double
 * the simulator runs on ({@link InMemoryPartitionPinsContractTests}) and
 * {@code JdbcPartitionPins} on each database
 * ({@code *PartitionPinsContractIntegrationTests}).
 */
abstract class PartitionPinsContract {

	private PartitionPins pins;

	/**
	 * Pins on empty tables.
	 * @return the pins
	 */
	protected abstract PartitionPins createPins();

	@BeforeEach
	void createThePins() {
		this.pins = createPins();
	}

	@Test
	void aGroupWithoutPinsReadsEmpty() {
		assertThat(this.pins.pins("g")).isEmpty();
		assertThat(this.pins.unpin("g", 0)).as("nothing to unpin").isFalse();
	}

	@Test
	void aPinIsReadBackAndAnotherPinOfThePartitionReplacesIt() {
		this.pins.pin("g", 3, "a");
		this.pins.pin("g", 5, "b");
		assertThat(this.pins.pins("g")).isEqualTo(Map.of(3, "a", 5, "b"));
		this.pins.pin("g", 3, "c");
		this.pins.pin("g", 3, "c");
		assertThat(this.pins.pins("g")).isEqualTo(Map.of(3, "c", 5, "b"));
	}

	@Test
	void unpinRemovesOnlyThatPartitionsPinAndSaysWhetherItWasPinned() {
		this.pins.pin("g", 0, "a");
		this.pins.pin("g", 1, "a");
		assertThat(this.pins.unpin("g", 0)).isTrue();
		assertThat(this.pins.unpin("g", 0)).as("again").isFalse();
		assertThat(this.pins.pins("g")).isEqualTo(Map.of(1, "a"));
		this.pins.pin("g", 0, "b");
		assertThat(this.pins.pins("g")).as("pinned again after an unpin").isEqualTo(Map.of(0, "b", 1, "a"));
	}

	@Test
	void groupsKeepTheirPinsApart() {
		this.pins.pin("g", 0, "a");
		this.pins.pin("h", 0, "b");
		this.pins.pin("G", 0, "c");
		assertThat(this.pins.pins("g")).isEqualTo(Map.of(0, "a"));
		assertThat(this.pins.pins("h")).isEqualTo(Map.of(0, "b"));
		assertThat(this.pins.unpin("h", 0)).isTrue();
		assertThat(this.pins.pins("g")).isEqualTo(Map.of(0, "a"));
		assertThat(this.pins.pins("G")).as("group names compared exactly").isEqualTo(Map.of(0, "c"));
	}

	@Test
	void aReadIsASnapshotNotAView() {
		this.pins.pin("g", 0, "a");
		Map<Integer, String> read = this.pins.pins("g");
		this.pins.pin("g", 0, "b");
		this.pins.pin("g", 1, "b");
		assertThat(read).isEqualTo(Map.of(0, "a"));
	}

}
