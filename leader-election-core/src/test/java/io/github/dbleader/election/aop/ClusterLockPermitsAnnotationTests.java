package io.github.dbleader.election.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.InMemoryLockRepository;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A {@code @ClusterLock(permits = 3)} method called at once on several nodes (each its
 * own {@link ClusterLocks} and proxy, sharing the in-memory lock rows) never runs more
 * than three calls at once.
 */
class ClusterLockPermitsAnnotationTests {

	private final InMemoryLockRepository repository = new InMemoryLockRepository();

	@Test
	void callsOnSeveralNodesAtOnceRunAtMostThreeAtOnce() throws Exception {
		Report target = new Report();
		List<Report> nodes = List.of(proxy(target, "a"), proxy(target, "b"), proxy(target, "c"), proxy(target, "d"));
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			for (int round = 0; round < 10; round++) {
				target.three = new CountDownLatch(3);
				List<CompletableFuture<Void>> calls = new ArrayList<>();
				for (int call = 0; call < 8; call++) {
					Report node = nodes.get(call % nodes.size());
					calls.add(CompletableFuture.runAsync(node::run, threads));
				}
				for (CompletableFuture<Void> call : calls) {
					call.get(30, TimeUnit.SECONDS);
				}
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(target.most.get()).isEqualTo(3);
		assertThat(target.runs.get()).isGreaterThanOrEqualTo(30);
	}

	@Test
	void aPermitCountOrNameThatDoesNotFitFailsTheCall() {
		ProxyFactory factory = new ProxyFactory(new Invalid());
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new ClusterLockAdvisor(
				new ClusterLockInterceptor(() -> new ClusterLocks(this.repository, "a"), Duration::parse)));
		Invalid proxy = (Invalid) factory.getProxy();
		assertThatIllegalArgumentException().isThrownBy(proxy::none).withMessageContaining("between 1 and 1000");
	}

	private Report proxy(Report target, String nodeId) {
		ClusterLocks locks = new ClusterLocks(this.repository, nodeId);
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new ClusterLockAdvisor(new ClusterLockInterceptor(() -> locks, Duration::parse)));
		return (Report) factory.getProxy();
	}

	static class Report {

		final AtomicInteger running = new AtomicInteger();

		final AtomicInteger most = new AtomicInteger();

		final AtomicInteger runs = new AtomicInteger();

		volatile CountDownLatch three = new CountDownLatch(3);

		@ClusterLock(name = "report", permits = 3, atMostFor = "PT30S", atLeastFor = "PT0S")
		public void run() {
			this.most.accumulateAndGet(this.running.incrementAndGet(), Math::max);
			this.runs.incrementAndGet();
			try {
				// Calls overlap until three have started (or a while has passed), so the
				// others find every permit held.
				this.three.countDown();
				this.three.await(2, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.running.decrementAndGet();
			}
		}

	}

	static class Invalid {

		@ClusterLock(name = "report", permits = 0, atMostFor = "PT30S", atLeastFor = "PT0S")
		public void none() {
		}

	}

}
