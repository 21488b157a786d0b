package io.github.dbleader.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Sample application: a scheduled job that runs only on the leader and records each run
 * in a fenced transaction ({@link FencedJob}), a second one that runs on whichever
 * instance takes its cluster lock ({@link ClusterLockJob}), a third that works on the
 * partitions of the group {@code orders} this node owns ({@link PartitionedJob}), a
 * status page at {@code /}, and the actuator endpoints {@code leader}, {@code locks},
 * {@code partitions}, {@code health} and {@code metrics}.
 */
@SpringBootApplication
@EnableScheduling
@ConfigurationPropertiesScan
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
