package io.github.dbleader.autoconfigure.aop;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import javax.sql.DataSource;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.LeaderElectionDataSource;
import io.github.dbleader.election.ElectionService;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport.ConditionAndOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport.ConditionAndOutcomes;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.Assert;

/**
 * Fails start-up, with an {@link ElectionRequiredException}, as soon as a bean has a
 * method guarded by one of the given annotations (such as
 * {@link io.github.dbleader.election.aop.LeaderOnly @LeaderOnly}, on the method or its
 * class) while the context has no {@link ElectionService}: without an election, the
 * advice could not tell the leader, and backing off would run the methods on every node.
 * {@code leader-election.enabled=false} turns this check off together with the advice.
 */
class ElectionRequiredCheck implements BeanPostProcessor, BeanFactoryAware {

	private final List<Class<? extends Annotation>> guardingAnnotations;

	private final Set<Class<?>> checkedClasses = ConcurrentHashMap.newKeySet();

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	private volatile @Nullable Boolean electionAvailable;

	/**
	 * Create a check.
	 * @param guardingAnnotations the annotations that mark methods (or classes) that must
	 * only run where an election decides
	 */
	ElectionRequiredCheck(List<Class<? extends Annotation>> guardingAnnotations) {
		this.guardingAnnotations = List.copyOf(guardingAnnotations);
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		Assert.isInstanceOf(ConfigurableListableBeanFactory.class, beanFactory);
		this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		if (isElectionAvailable() || !this.checkedClasses.add(targetClass)) {
			return bean;
		}
		for (Class<? extends Annotation> annotation : this.guardingAnnotations) {
			String guarded = findGuarded(targetClass, annotation);
			if (guarded != null) {
				throw failure(guarded, "@" + annotation.getSimpleName());
			}
		}
		return bean;
	}

	private boolean isElectionAvailable() {
		Boolean available = this.electionAvailable;
		if (available == null) {
			// Bean definitions are complete before any bean is post-processed; looking at
			// them creates nothing.
			available = beanFactory().getBeanNamesForType(ElectionService.class, true, false).length > 0;
			this.electionAvailable = available;
		}
		return available;
	}

	private static @Nullable String findGuarded(Class<?> targetClass, Class<? extends Annotation> annotation) {
		if (!AnnotationUtils.isCandidateClass(targetClass, annotation)) {
			return null;
		}
		if (AnnotatedElementUtils.hasAnnotation(targetClass, annotation)) {
			return targetClass.getName() + " (annotated on the class)";
		}
		Set<Method> methods = MethodIntrospector
			.selectMethods(targetClass,
					(MethodIntrospector.MetadataLookup<Boolean>) (
							method) -> AnnotatedElementUtils.hasAnnotation(method, annotation) ? Boolean.TRUE : null)
			.keySet();
		return methods.stream()
			.map((method) -> targetClass.getName() + "#" + method.getName())
			.min(Comparator.naturalOrder())
			.orElse(null);
	}

	private ElectionRequiredException failure(String guarded, String annotation) {
		ConfigurableListableBeanFactory beanFactory = beanFactory();
		List<String> dataSources = Arrays.asList(beanFactory.getBeanNamesForType(DataSource.class, true, false));
		return new ElectionRequiredException(guarded, annotation, reason(beanFactory, dataSources), dataSources);
	}

	private static String reason(ConfigurableListableBeanFactory beanFactory, List<String> dataSources) {
		String noUrl = ", and leader-election.jdbc.url is not set";
		if (dataSources.isEmpty()) {
			return "the context has no DataSource bean" + noUrl;
		}
		boolean chosen = dataSources.stream()
			.anyMatch((name) -> (beanFactory.containsBeanDefinition(name)
					&& beanFactory.getMergedBeanDefinition(name).isPrimary())
					|| beanFactory.findAnnotationOnBean(name, LeaderElectionDataSource.class) != null);
		if (dataSources.size() > 1 && !chosen) {
			return "the context has " + dataSources.size() + " DataSource beans " + dataSources
					+ ", none of them @Primary or @LeaderElectionDataSource" + noUrl;
		}
		return "LeaderElectionAutoConfiguration " + autoConfigurationOutcome(beanFactory);
	}

	private static String autoConfigurationOutcome(ConfigurableListableBeanFactory beanFactory) {
		String name = LeaderElectionAutoConfiguration.class.getName();
		ConditionEvaluationReport report = ConditionEvaluationReport.get(beanFactory);
		if (report.getExclusions().contains(name)) {
			return "is excluded";
		}
		ConditionAndOutcomes outcomes = report.getConditionAndOutcomesBySource().get(name);
		if (outcomes != null) {
			for (ConditionAndOutcome outcome : outcomes) {
				if (!outcome.getOutcome().isMatch()) {
					return "did not match: " + outcome.getOutcome().getMessage();
				}
			}
		}
		return "did not create an ElectionService (is it on the class path and imported?)";
	}

	private ConfigurableListableBeanFactory beanFactory() {
		Assert.state(this.beanFactory != null, "No BeanFactory");
		return this.beanFactory;
	}

}
