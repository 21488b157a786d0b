package io.github.dbleader.election.partition;

/** {@link PartitionPinsContract} on the double the simulator runs on. */
class InMemoryPartitionPinsContractTests extends PartitionPinsContract {

	@Override
	protected PartitionPins createPins() {
		return new InMemoryPartitionPins();
	}

}
