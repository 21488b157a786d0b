package io.github.dbleader.autoconfigure.jobs.elsewhere;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.dbleader.election.aop.ClusterLock;
import io.github.dbleader.election.aop.LeaderOnly;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Jobs of a class that the {@code jobs} endpoint's package cannot reach: package-private,
 * with a package-private method, as an application's own job classes often are.
 */
@Configuration(proxyBeanMethods = false)
public class ElsewhereJobsConfiguration {

	/** What the jobs ran, in order. */
	public static final List<String> RUNS = new CopyOnWriteArrayList<>();

	@Bean
	HiddenJobs hiddenJobs() {
		return new HiddenJobs();
	}

	static class HiddenJobs {

		@LeaderOnly("reports")
		public void report() {
			RUNS.add("hidden report");
		}

		@ClusterLock(name = "hidden")
		void tidy() {
			RUNS.add("hidden tidy");
		}

	}

}
