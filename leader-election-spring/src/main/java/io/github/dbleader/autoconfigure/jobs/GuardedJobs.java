package io.github.dbleader.autoconfigure.jobs;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

import io.github.dbleader.election.aop.ClusterLock;
import io.github.dbleader.election.aop.LeaderOnly;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
import org.springframework.util.ReflectionUtils;

/**
 * The {@link Job jobs} of this node, found once all singletons exist: the methods without
 * parameters of singleton beans that are annotated {@link LeaderOnly @LeaderOnly} or
 * {@link ClusterLock @ClusterLock}, and the {@code @Scheduled} methods without parameters
 * of classes annotated {@code @LeaderOnly} (not every public method of such a class,
 * which would make its getters jobs). A method counts only where its calls go through the
 * guard: the bean is a proxy that can invoke it, and it is not {@code @Async} (whose
 * proxy would hand the call to another thread first). Each job is named by its bean's
 * name, a dot and the method's name.
 */
public class GuardedJobs implements SmartInitializingSingleton {

	private final ConfigurableListableBeanFactory beanFactory;

	private volatile Map<String, Job> jobs = Map.of();

	/**
	 * Create a registry that finds its jobs once the singletons of the factory exist.
	 * @param beanFactory the factory of the beans
	 */
	public GuardedJobs(ConfigurableListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Map<String, Job> found = new TreeMap<>();
		for (String beanName : this.beanFactory.getBeanDefinitionNames()) {
			if (this.beanFactory.containsSingleton(beanName) && !beanName.startsWith("scopedTarget.")) {
				Object bean = this.beanFactory.getSingleton(beanName);
				if (bean != null) {
					collect(beanName, bean, found);
				}
			}
		}
		this.jobs = Collections.unmodifiableMap(found);
	}

	/**
	 * Every job, by name.
	 * @return the jobs, in name order
	 */
	public Map<String, Job> jobs() {
		return this.jobs;
	}

	/**
	 * One job.
	 * @param name the job's name
	 * @return the job, or {@code null} if there is none of that name
	 */
	public @Nullable Job find(String name) {
		return this.jobs.get(name);
	}

	private static void collect(String beanName, Object bean, Map<String, Job> found) {
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		if (!AopUtils.isAopProxy(bean) || !AnnotationUtils.isCandidateClass(targetClass, LeaderOnly.class)
				&& !AnnotationUtils.isCandidateClass(targetClass, ClusterLock.class)) {
			return;
		}
		LeaderOnly onClass = AnnotatedElementUtils.findMergedAnnotation(targetClass, LeaderOnly.class);
		Map<Method, Job> jobs = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<Job>) (method) -> job(beanName, bean, targetClass, method, onClass));
		jobs.values().forEach((job) -> found.put(job.name(), job));
	}

	private static @Nullable Job job(String beanName, Object bean, Class<?> targetClass, Method method,
			@Nullable LeaderOnly onClass) {
		int modifiers = method.getModifiers();
		if (method.getParameterCount() != 0 || Modifier.isStatic(modifiers) || Modifier.isPrivate(modifiers)
				|| Modifier.isFinal(modifiers) || method.getDeclaringClass() == Object.class
				|| AnnotatedElementUtils.hasAnnotation(method, Async.class)
				|| AnnotatedElementUtils.hasAnnotation(targetClass, Async.class)) {
			return null;
		}
		String name = beanName + "." + method.getName();
		String display = targetClass.getSimpleName() + "." + method.getName();
		LeaderOnly leaderOnly = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
		if (leaderOnly == null && onClass != null && (AnnotatedElementUtils.hasAnnotation(method, Scheduled.class)
				|| AnnotatedElementUtils.hasAnnotation(method, Schedules.class))) {
			leaderOnly = onClass;
		}
		Method invocable = invocable(method, bean);
		if (invocable == null) {
			return null;
		}
		if (leaderOnly != null) {
			return new Job(name, Job.Kind.LEADER_ONLY, leaderOnly.election(), display, beanName, invocable);
		}
		ClusterLock clusterLock = AnnotatedElementUtils.findMergedAnnotation(method, ClusterLock.class);
		if (clusterLock != null) {
			// The lock the interceptor takes: by default the class's simple name and the
			// method's.
			String lock = clusterLock.name().isEmpty() ? display : clusterLock.name();
			return new Job(name, Job.Kind.CLUSTER_LOCK, lock, display, beanName, invocable);
		}
		return null;
	}

	/**
	 * The method as the proxy exposes it, or {@code null} if it does not (a JDK proxy
	 * without it); accessible, since an application's job classes and methods need not be
	 * public.
	 */
	private static @Nullable Method invocable(Method method, Object bean) {
		try {
			Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
			ReflectionUtils.makeAccessible(invocable);
			return invocable;
		}
		catch (IllegalStateException ex) {
			return null;
		}
	}

}
