package io.github.dbleader.autoconfigure.aop;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.election.aop.LeaderOnlyAdvisor;
import io.github.dbleader.election.aop.LeaderOnlyInterceptor;
import io.github.dbleader.election.aop.SkippedInvocationListener;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.type.AnnotationMetadata;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration}
 * of the {@link LeaderOnly @LeaderOnly} advisor. Registers an infrastructure auto-proxy
 * creator if the context has none (e.g. with {@code spring.aop.auto=false}), because an
 * annotation that silently did nothing would run leader-only work on every node.
 */
@AutoConfiguration(after = { LeaderElectionAutoConfiguration.class, AopAutoConfiguration.class })
@ConditionalOnClass({ Advisor.class, MethodInterceptor.class })
@ConditionalOnBean(ElectionService.class)
@Import(LeaderOnlyAutoConfiguration.AutoProxyCreatorRegistrar.class)
public final class LeaderOnlyAutoConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LeaderOnlyAdvisor leaderOnlyAdvisor(ObjectProvider<ElectionService> electionService,
			ObjectProvider<SkippedInvocationListener> skippedInvocationListeners) {
		// Static and lazy: the advisor is created while bean post-processors are being
		// registered, long before the election service may be.
		return new LeaderOnlyAdvisor(new LeaderOnlyInterceptor(electionService::getObject,
				() -> skippedInvocationListeners.orderedStream().toList()));
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LeaderOnlyElectionRegistrar leaderOnlyElectionRegistrar(ObjectProvider<ElectionService> electionService) {
		return new LeaderOnlyElectionRegistrar(electionService);
	}

	static class AutoProxyCreatorRegistrar implements ImportBeanDefinitionRegistrar {

		@Override
		public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata,
				BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		}

	}

}
