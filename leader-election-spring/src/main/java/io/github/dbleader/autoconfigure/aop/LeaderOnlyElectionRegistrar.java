package io.github.dbleader.autoconfigure.aop;

import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.aop.LeaderOnly;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Joins the elections that {@link LeaderOnly @LeaderOnly} beans name, so that this node
 * competes for them from start-up. Without it, an election that is not listed in
 * {@code leader-election.elections} would only be joined at the first guarded call, and
 * that call would be skipped.
 *
 * <p>
 * Singletons are collected while they are created and joined once all of them exist,
 * before the election service starts; beans created later (lazy or prototype) join their
 * elections when they are created. An invalid election name fails at that point, not at
 * the first call.
 */
class LeaderOnlyElectionRegistrar implements BeanPostProcessor, SmartInitializingSingleton {

	private final ObjectProvider<ElectionService> electionService;

	/** Election names found so far, each with the first bean that names it. */
	private final Map<String, String> elections = new ConcurrentHashMap<>();

	private final Set<Class<?>> nonAnnotatedClasses = ConcurrentHashMap.newKeySet();

	private volatile boolean singletonsInstantiated;

	LeaderOnlyElectionRegistrar(ObjectProvider<ElectionService> electionService) {
		this.electionService = electionService;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		if (this.nonAnnotatedClasses.contains(targetClass)) {
			return bean;
		}
		Set<String> named = electionsNamedBy(targetClass);
		if (named.isEmpty()) {
			this.nonAnnotatedClasses.add(targetClass);
		}
		else if (this.singletonsInstantiated) {
			named.forEach((election) -> join(election, beanName));
		}
		else {
			named.forEach((election) -> this.elections.putIfAbsent(election, beanName));
		}
		return bean;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.singletonsInstantiated = true;
		this.elections.forEach(this::join);
	}

	private void join(String election, String beanName) {
		ElectionService service = this.electionService.getIfAvailable();
		if (service == null) {
			return;
		}
		try {
			service.election(election);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(
					"@LeaderOnly of bean '" + beanName + "' names an invalid election: " + ex.getMessage(), ex);
		}
	}

	private static Set<String> electionsNamedBy(Class<?> targetClass) {
		if (!AnnotationUtils.isCandidateClass(targetClass, LeaderOnly.class)) {
			return Set.of();
		}
		Set<String> names = new HashSet<>();
		LeaderOnly onClass = AnnotatedElementUtils.findMergedAnnotation(targetClass, LeaderOnly.class);
		if (onClass != null) {
			names.add(onClass.election());
		}
		Map<Method, LeaderOnly> onMethods = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<LeaderOnly>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, LeaderOnly.class));
		onMethods.values().forEach((annotation) -> names.add(annotation.election()));
		return names;
	}

}
