package io.github.dbleader.autoconfigure;

import java.util.function.Supplier;

import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.target.AbstractLazyCreationTargetSource;
import org.springframework.util.ClassUtils;

/**
 * A {@link JdbcLeaseRepository} created on first use, for a database whose platform only
 * the database itself can tell: so the context starts while the database is away, and
 * the repository is built when the election first reaches it. A creation that fails (the
 * database still away) is tried again at the next call.
 */
final class DeferredLeaseRepository extends AbstractLazyCreationTargetSource {

	private final Supplier<JdbcLeaseRepository> factory;

	private DeferredLeaseRepository(Supplier<JdbcLeaseRepository> factory) {
		this.factory = factory;
	}

	/**
	 * Create a proxy with every interface of {@link JdbcLeaseRepository}.
	 * @param factory creates the repository, asking the database for its platform
	 * @return the proxy
	 */
	static LeaseRepository create(Supplier<JdbcLeaseRepository> factory) {
		ProxyFactory proxy = new ProxyFactory();
		proxy.setInterfaces(ClassUtils.getAllInterfacesForClass(JdbcLeaseRepository.class));
		proxy.setTargetSource(new DeferredLeaseRepository(factory));
		return (LeaseRepository) proxy.getProxy(DeferredLeaseRepository.class.getClassLoader());
	}

	@Override
	public Class<?> getTargetClass() {
		return JdbcLeaseRepository.class;
	}

	@Override
	protected Object createObject() {
		return this.factory.get();
	}

}
