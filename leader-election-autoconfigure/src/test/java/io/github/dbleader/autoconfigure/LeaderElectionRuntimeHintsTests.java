package io.github.dbleader.autoconfigure;

import java.io.IOException;
import java.util.Arrays;

import io.github.dbleader.autoconfigure.endpoint.ErrorDescriptor;
import io.github.dbleader.autoconfigure.endpoint.LeaderEndpoint;
import io.github.dbleader.autoconfigure.jobs.JobsEndpoint;
import io.github.dbleader.autoconfigure.locks.LocksEndpoint;
import io.github.dbleader.autoconfigure.partition.PartitionProperties;
import io.github.dbleader.autoconfigure.partition.PartitionsEndpoint;
import io.github.dbleader.election.aop.ClusterLock;
import io.github.dbleader.election.aop.LeaderOnly;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints an ahead-of-time processed application gets from the starter.
 */
class LeaderElectionRuntimeHintsTests {

	private final RuntimeHints hints = hintsFromAotFactories();

	@Test
	void registrarIsListedInAotFactories() {
		assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(LeaderElectionRuntimeHints.class);
	}

	@Test
	void everySchemaScriptIsIncluded() throws IOException {
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/dbleader/election/jdbc/*.sql");
		assertThat(scripts).extracting(Resource::getFilename)
			.contains("schema-h2.sql", "schema-mysql.sql", "schema-postgresql.sql");
		for (Resource script : scripts) {
			assertThat(RuntimeHintsPredicates.resource()
				.forResource("io/github/dbleader/election/jdbc/" + script.getFilename())).accepts(this.hints);
		}
		assertThat(RuntimeHintsPredicates.resource().forResource("io/github/dbleader/election/jdbc/other.txt"))
			.rejects(this.hints);
	}

	@Test
	void configurationPropertiesCanBeBound() {
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(LeaderElectionProperties.class, "setRenewInterval")).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(LeaderElectionProperties.Jdbc.class, "setTableName")).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(PartitionProperties.Group.class, "setCount"))
			.accepts(this.hints);
	}

	@Test
	void annotationAttributesCanBeReadAndSynthesized() {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(LeaderOnly.class, "election"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ClusterLock.class, "atMostFor"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(LeaderOnly.class)).accepts(this.hints);
	}

	@Test
	void endpointResponsesCanBeWritten() {
		for (Class<?> body : Arrays.asList(LeaderEndpoint.LeaderDescriptor.class,
				LeaderEndpoint.ElectionDescriptor.class, LeaderEndpoint.CandidateDescriptor.class,
				LocksEndpoint.LocksDescriptor.class, LocksEndpoint.RunDescriptor.class,
				PartitionsEndpoint.GroupDescriptor.class, PartitionsEndpoint.MoveDescriptor.class,
				JobsEndpoint.JobsDescriptor.class, JobsEndpoint.JobDescriptor.class, JobsEndpoint.RunDescriptor.class,
				ErrorDescriptor.class)) {
			assertThat(RuntimeHintsPredicates.reflection().onType(body)).as(body.getName()).accepts(this.hints);
		}
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(LeaderEndpoint.ElectionDescriptor.class, "thisNodeLeads")).accepts(this.hints);
	}

	@Test
	void guardedMethodsCanBeInvokedReflectivelyAsTheJobsEndpointDoes() {
		RuntimeHints hints = new RuntimeHints();
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, Jobs.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Jobs.class, "report")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Jobs.class, "nightly")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Jobs.class, "unguarded")).rejects(hints);
	}

	private static RuntimeHints hintsFromAotFactories() {
		RuntimeHints hints = new RuntimeHints();
		SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(hints,
					LeaderElectionRuntimeHintsTests.class.getClassLoader()));
		return hints;
	}

	static class Jobs {

		@LeaderOnly
		public void report() {
		}

		@ClusterLock
		public void nightly() {
		}

		public void unguarded() {
		}

	}

}
