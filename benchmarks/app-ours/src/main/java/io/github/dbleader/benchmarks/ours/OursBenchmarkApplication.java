package io.github.dbleader.benchmarks.ours;

import io.github.dbleader.benchmarks.jobruns.JobRunsConfiguration;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * This starter under benchmark: the election's timing comes from
 * {@code leader-election.*}, given by the harness.
 */
@SpringBootApplication
@EnableScheduling
@Import(JobRunsConfiguration.class)
public class OursBenchmarkApplication {

	public static void main(String[] args) {
		SpringApplication.run(OursBenchmarkApplication.class, args);
	}

}
