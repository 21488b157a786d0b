package io.github.dbleader.autoconfigure;

import io.github.dbleader.autoconfigure.endpoint.ErrorDescriptor;
import io.github.dbleader.autoconfigure.endpoint.LeaderEndpoint;
import io.github.dbleader.autoconfigure.jobs.JobsEndpoint;
import io.github.dbleader.autoconfigure.locks.LocksEndpoint;
import io.github.dbleader.autoconfigure.partition.PartitionProperties;
import io.github.dbleader.autoconfigure.partition.PartitionsEndpoint;
import io.github.dbleader.election.aop.ClusterLock;
import io.github.dbleader.election.aop.LeaderOnly;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * What the starter needs at run time in an ahead-of-time processed application (a GraalVM
 * native image, or the JVM with {@code spring.aot.enabled}) that static analysis does not
 * find: the schema scripts it reads by name, the binding of its
 * {@code @ConfigurationProperties}, the attributes of {@link LeaderOnly @LeaderOnly} and
 * {@link ClusterLock @ClusterLock} that the advice reads reflectively (synthesized, since
 * {@code @LeaderOnly} has aliases), and the endpoints' response records that Jackson
 * writes. Registered in {@code META-INF/spring/aot.factories}.
 */
class LeaderElectionRuntimeHints implements RuntimeHintsRegistrar {

	/**
	 * The schema scripts of {@code io.github.dbleader.election.jdbc.LeaseSchema}, one per
	 * platform.
	 */
	static final String SCHEMA_SCRIPTS = "io/github/dbleader/election/jdbc/schema-*.sql";

	private static final Class<?>[] RESPONSE_BODIES = { LeaderEndpoint.LeaderDescriptor.class,
			LeaderEndpoint.ElectionDescriptor.class, LeaderEndpoint.CandidateDescriptor.class,
			LocksEndpoint.LocksDescriptor.class, LocksEndpoint.LockDescriptor.class, LocksEndpoint.RunDescriptor.class,
			LocksEndpoint.ReleaseDescriptor.class, PartitionsEndpoint.PartitionsDescriptor.class,
			PartitionsEndpoint.GroupDescriptor.class, PartitionsEndpoint.PartitionDescriptor.class,
			PartitionsEndpoint.MoveDescriptor.class, JobsEndpoint.JobsDescriptor.class,
			JobsEndpoint.JobDescriptor.class, JobsEndpoint.RunDescriptor.class, ErrorDescriptor.class };

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SCHEMA_SCRIPTS);
		BindableRuntimeHintsRegistrar.forTypes(LeaderElectionProperties.class, PartitionProperties.class)
			.registerHints(hints, classLoader);
		for (Class<?> annotation : new Class<?>[] { LeaderOnly.class, ClusterLock.class }) {
			hints.reflection().registerType(annotation, MemberCategory.INVOKE_PUBLIC_METHODS);
			hints.proxies().registerJdkProxy(annotation);
		}
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), RESPONSE_BODIES);
	}

}
