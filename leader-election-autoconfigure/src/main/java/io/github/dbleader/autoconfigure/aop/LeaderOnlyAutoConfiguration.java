package io.github.dbleader.autoconfigure.aop;

import java.lang.annotation.Annotation;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.LeaderElectionProperties;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.MonotonicClock;
import io.github.dbleader.election.aop.ClusterLock;
import io.github.dbleader.election.aop.ClusterLockAdvisor;
import io.github.dbleader.election.aop.ClusterLockInterceptor;
import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.election.aop.LeaderOnlyAdvisor;
import io.github.dbleader.election.aop.LeaderOnlyInterceptor;
import io.github.dbleader.election.aop.LeaderOnlyRunListener;
import io.github.dbleader.election.aop.LeaderOnlyRuns;
import io.github.dbleader.election.aop.SkippedInvocationListener;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.observation.LeaderOnlyCallObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the {@link LeaderOnly @LeaderOnly} and
 * {@link ClusterLock @ClusterLock} advisors. Registers an infrastructure auto-proxy
 * creator if the context has none (e.g. with {@code spring.aop.auto=false}), because an
 * annotation that silently did nothing would run guarded work on every node. For the same
 * reason it does not back off when no election service could be configured (no
 * {@code DataSource}, or several and none chosen): start-up then fails as soon as a bean
 * has a {@code @LeaderOnly} or {@code @ClusterLock} method, unless
 * {@code leader-election.enabled=false} says that such methods are to run on every node.
 * With an {@link ObservationRegistry} bean, each {@code @LeaderOnly} call is observed in
 * it (with the {@link LeaderOnlyCallObservationConvention} bean if there is one).
 */
@AutoConfiguration(after = { LeaderElectionAutoConfiguration.class, AopAutoConfiguration.class })
@ConditionalOnClass({ Advisor.class, MethodInterceptor.class })
@ConditionalOnBooleanProperty(name = "leader-election.enabled", matchIfMissing = true)
@Import(LeaderOnlyAutoConfiguration.AutoProxyCreatorRegistrar.class)
public final class LeaderOnlyAutoConfiguration {

	/**
	 * Annotations whose methods must only run where an election decides: start-up fails
	 * if a bean has one and the context has no election service.
	 */
	static final List<Class<? extends Annotation>> GUARDING_ANNOTATIONS = List.of(LeaderOnly.class, ClusterLock.class);

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LeaderOnlyAdvisor leaderOnlyAdvisor(ObjectProvider<ElectionService> electionService,
			ObjectProvider<SkippedInvocationListener> skippedInvocationListeners,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<LeaderOnlyCallObservationConvention> observationConvention,
			ObjectProvider<LeaderOnlyRuns> leaderOnlyRuns, Environment environment) {
		// Static and lazy: the advisor is created while bean post-processors are being
		// registered, long before the election service may be.
		LeaderOnlyInterceptor interceptor = new LeaderOnlyInterceptor(electionService::getObject,
				() -> skippedInvocationListeners.orderedStream().toList(),
				() -> leaderOnlyRuns.getIfAvailable(LeaderOnlyRuns::new), durations(environment));
		interceptor.setObservationRegistry(() -> observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP));
		interceptor.setObservationConvention(observationConvention::getIfUnique);
		return new LeaderOnlyAdvisor(interceptor);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static ClusterLockAdvisor clusterLockAdvisor(ObjectProvider<ClusterLocks> clusterLocks, Environment environment) {
		return new ClusterLockAdvisor(new ClusterLockInterceptor(clusterLocks::getObject, durations(environment)));
	}

	/**
	 * The durations of the annotations. Placeholders resolve at the first call of each
	 * method, once the environment is complete; a duration that does not parse fails that
	 * call.
	 */
	private static Function<String, @Nullable Duration> durations(Environment environment) {
		return (text) -> {
			String resolved = environment.resolveRequiredPlaceholders(text).strip();
			return resolved.isEmpty() ? null : DurationStyle.detectAndParse(resolved);
		};
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LeaderOnlyElectionRegistrar leaderOnlyElectionRegistrar(ObjectProvider<ElectionService> electionService) {
		return new LeaderOnlyElectionRegistrar(electionService);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static ElectionRequiredCheck leaderOnlyElectionRequiredCheck() {
		return new ElectionRequiredCheck(GUARDING_ANNOTATIONS);
	}

	/**
	 * The record of the {@code @LeaderOnly} calls, with the properties, where the
	 * election service is auto-configured; elsewhere the interceptor keeps a record of
	 * its own with the defaults.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean({ ElectionService.class, LeaderElectionProperties.class })
	static class LeaderOnlyRunsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LeaderOnlyRuns leaderOnlyRuns(LeaderElectionProperties properties,
				ObjectProvider<LeaderOnlyRunListener> listeners) {
			LeaderElectionProperties.LeaderOnly leaderOnly = properties.getLeaderOnly();
			// Checked every renew interval: a run's bound or loss shows within one.
			return new LeaderOnlyRuns(leaderOnly.determineHistorySize(), leaderOnly.determineMaxRunTime(),
					properties.determineElectionSettings().renewInterval(), MonotonicClock.SYSTEM, Clock.systemUTC(),
					listeners.orderedStream().toList());
		}

	}

	static class AutoProxyCreatorRegistrar implements ImportBeanDefinitionRegistrar {

		@Override
		public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata,
				BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		}

	}

}
