package io.github.dbleader.election.jdbc;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import io.github.dbleader.election.LeaseState;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link LeaseView} decides to read, without a database: the slices read again by
 * key cover every election and start over, the elections due come on top, and the view is
 * read whole when it must be.
 */
class LeaseViewTests {

	private static final List<String> ELECTIONS = IntStream.range(0, 7).mapToObj((i) -> "e" + i).toList();

	@Test
	void theSlicesCoverEveryElectionInNameOrderAndStartOver() {
		LeaseView view = new LeaseView(0, 3, LeaseView.PAGE);
		assertThat(view.plan().whole()).as("a new view").isTrue();
		view.take(view.wholePlan(), read(1_000, ELECTIONS), "a");

		List<List<String>> slices = new ArrayList<>();
		for (int round = 0; round < 4; round++) {
			LeaseView.Plan plan = view.plan();
			assertThat(plan.whole()).isFalse();
			assertThat(plan.since()).isEqualTo(1_000 + round - LeaseView.OVERLAP_MILLIS);
			slices.add(plan.keys());
			view.take(plan, read(1_001 + round, List.of()), "a");
		}
		assertThat(slices).containsExactly(List.of("e0", "e1", "e2"), List.of("e3", "e4", "e5"), List.of("e6"),
				List.of("e0", "e1", "e2"));
	}

	@Test
	void electionsJoinedOrChangingAreReadByKeyOnTopOfTheSlice() {
		LeaseView view = new LeaseView(0, 2, LeaseView.PAGE);
		view.take(view.wholePlan(), read(1_000, ELECTIONS), "a");
		view.joined(List.of("new"));
		view.changing(List.of("e5", "not-a-candidacy"));
		assertThat(view.plan().keys()).containsExactly("e0", "e1", "e5", "new");
	}

	@Test
	void electionsDueBeyondOneReadWaitForTheNextReads() {
		LeaseView view = new LeaseView(0, 2, LeaseView.PAGE);
		view.take(view.wholePlan(), read(1_000, ELECTIONS), "a");
		List<String> many = IntStream.range(0, LeaseView.MAX_KEYS_PER_READ).mapToObj((i) -> "j" + i).toList();
		view.joined(many);
		LeaseView.Plan first = view.plan();
		assertThat(first.whole()).isFalse();
		assertThat(first.keys()).hasSize(LeaseView.MAX_KEYS_PER_READ);
		view.take(first, read(1_001, List.of()), "a");
		assertThat(view.plan().keys()).as("the rest of them and a slice").hasSize(2 + 2);
	}

	@Test
	void aViewOfMoreElectionsThanAPageIsReadWholeInPages() {
		LeaseView view = new LeaseView(0, 2, 5);
		assertThat(view.plan().paged()).as("nothing joined yet").isFalse();
		view.joined(ELECTIONS);
		LeaseView.Plan plan = view.plan();
		assertThat(plan.whole()).isTrue();
		assertThat(plan.paged()).isTrue();
		assertThat(plan.pageSize()).isEqualTo(5);
	}

	@Test
	void fewElectionsAreReadWholeEveryRound() {
		LeaseView view = new LeaseView(7, 2, LeaseView.PAGE);
		view.take(view.wholePlan(), read(1_000, ELECTIONS), "a");
		assertThat(view.plan().whole()).isTrue();
		view.joined(List.of("e7"));
		assertThat(view.plan().whole()).as("eight elections").isFalse();
	}

	@Test
	void aReadAfterAClockStepBackAServerChangeOrATakeOverOfTheNodesLeaseIsWhole() {
		LeaseView view = new LeaseView(0, 2, LeaseView.PAGE);
		view.take(view.wholePlan(), read(1_000, ELECTIONS), "a");
		assertThat(view.needsWhole(read(1_500, List.of()), "a")).isFalse();
		assertThat(view.needsWhole(read(999, List.of()), "a")).as("clock went back").isTrue();
		LeaseView.Read otherServer = read(1_500, List.of());
		otherServer.clock(1_500, "another server");
		assertThat(view.needsWhole(otherServer, "a")).as("another server").isTrue();
		LeaseView.Read takenOver = read(1_500, List.of());
		takenOver.sessions().put("a", new LeaseView.Session("a-1", 8, 4_000, 1_000, null, 0, 1, null));
		assertThat(view.needsWhole(takenOver, "a")).as("a take-over wrote the session").isTrue();
	}

	@Test
	void aLeaseLivesOnTheSessionOfTheInstanceThatAcquiredIt() {
		LeaseView.Read read = read(1_000, List.of());
		read.sessions().put("b", new LeaseView.Session("b-2", 9, 4_000, 900, "b-1", 5, 0, null));
		LeaseView.Row current = new LeaseView.Row("e", "b", 7, 3, Instant.ofEpochMilli(100), Instant.ofEpochMilli(100),
				Instant.ofEpochMilli(200), null, false, null, "server", "b-2");
		LeaseView.Row ended = new LeaseView.Row("e", "b", 7, 3, Instant.ofEpochMilli(100), Instant.ofEpochMilli(100),
				Instant.ofEpochMilli(200), null, false, null, "old", "b-1");
		LeaseView.Row none = new LeaseView.Row("e", "b", 7, 3, Instant.ofEpochMilli(100), Instant.ofEpochMilli(100),
				Instant.ofEpochMilli(200), null, false, null, "server", null);

		LeaseState live = LeaseView.state(current, read);
		assertThat(live.expired()).isFalse();
		assertThat(live.expiresAt().toEpochMilli()).isEqualTo(4_000);
		assertThat(live.renewedAt().toEpochMilli()).isEqualTo(900);
		assertThat(live.holderVersion()).isEqualTo(9);
		assertThat(live.sessionEnded()).isFalse();
		assertThat(live.sameServer()).isTrue();

		LeaseState endedState = LeaseView.state(ended, read);
		assertThat(endedState.expired()).isTrue();
		assertThat(endedState.expiresAt().toEpochMilli()).isEqualTo(200);
		assertThat(endedState.holderVersion()).isEqualTo(5);
		assertThat(endedState.sessionEnded()).isTrue();
		assertThat(endedState.sameServer()).isFalse();

		LeaseState without = LeaseView.state(none, read);
		assertThat(without.expired()).isTrue();
		assertThat(without.holderVersion()).isEqualTo(-1);
		assertThat(without.sessionEnded()).isFalse();
	}

	@Test
	void aLeaseIsComposedFromItsRowAsLastReadAndTheSessionsOfTheLastReadAndTheRowsReadSinceKeepTheirValues() {
		LeaseView view = new LeaseView(0, 2, LeaseView.PAGE);
		assertThat(view.lease("e5")).as("nothing read yet").isNull();
		LeaseView.Read first = view.newRead();
		first.clock(1_000, first.shared(new String("server")));
		first.sessions()
			.put("a", new LeaseView.Session(first.shared(new String("a-1")), 4, 4_000, 1_000, null, 0, 0, null));
		first.members().addAll(ELECTIONS);
		LeaseView.Row row = new LeaseView.Row("e5", first.shared(new String("a")), 7, 3, Instant.ofEpochMilli(100),
				Instant.ofEpochMilli(100), Instant.ofEpochMilli(200), null, false, null,
				first.shared(new String("server")), first.shared(new String("a-1")));
		first.rows().add(row);
		view.take(view.wholePlan(), first, "a");

		LeaseView.Read second = view.newRead();
		second.clock(1_500, second.shared(new String("server")));
		second.sessions()
			.put("a", new LeaseView.Session(second.shared(new String("a-1")), 5, 4_500, 1_500, null, 0, 0, null));
		// A partial read: the slice (e0, e1) and what changed, which is nothing.
		view.take(view.plan(), second, "a");
		LeaseState lease = view.lease("e5");
		assertThat(lease).as("the row as read first, the session as read last").isEqualTo(LeaseView.state(row, second));
		assertThat(lease.holderVersion()).isEqualTo(5);
		assertThat(lease.expiresAt().toEpochMilli()).isEqualTo(4_500);
		assertThat(lease.expired()).isFalse();
		assertThat(view.leases()).as("every lease, composed alike").containsExactly(lease);
		assertThat(view.lease("e2")).as("no row").isNull();
		assertThat(second.shared(new String("a-1"))).as("one instance for every read of the view")
			.isSameAs(row.leaderInstance());
	}

	@Test
	void aWholeReadKeepsTheNamesAsTheNodeJoinedThem() {
		LeaseView view = new LeaseView(0, 2, LeaseView.PAGE);
		String joined = new String("e5");
		view.joined(List.of(joined));
		LeaseView.Read read = read(1_000, List.of(new String("e5"), "e6"));
		read.rows()
			.add(new LeaseView.Row(new String("e5"), "a", 7, 3, Instant.ofEpochMilli(100), Instant.ofEpochMilli(100),
					Instant.ofEpochMilli(200), null, false, null, "server", "a-1"));
		view.take(view.wholePlan(), read, "a");
		assertThat(view.leases()).singleElement()
			.satisfies((lease) -> assertThat(lease.election()).as("the joined instance").isSameAs(joined));
	}

	/**
	 * A read at a database time on "server", of the node's elections where it is whole.
	 */
	private static LeaseView.Read read(long now, List<String> members) {
		LeaseView.Read read = new LeaseView.Read();
		read.clock(now, "server");
		read.sessions().put("a", new LeaseView.Session("a-1", 1, now + 3_000, now, null, 0, 0, null));
		read.members().addAll(members);
		return read;
	}

}
