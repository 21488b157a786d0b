package io.github.dbleader.autoconfigure;

import java.util.function.Supplier;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.target.AbstractLazyCreationTargetSource;
import org.springframework.util.ClassUtils;

/**
 * A JDBC repository (of locks; the leases' asks for its platform through its
 * {@link io.github.dbleader.election.jdbc.JdbcStore}) created on first use, for a
 * database whose platform only the database itself can tell: so the context starts while
 * the database is away, and the repository is built when the election or a lock first
 * reaches it. A creation that fails (the database still away) is tried again at the next
 * call.
 */
final class DeferredRepository extends AbstractLazyCreationTargetSource {

	private final Class<?> type;

	private final Supplier<?> factory;

	private DeferredRepository(Class<?> type, Supplier<?> factory) {
		this.type = type;
		this.factory = factory;
	}

	/**
	 * Create a proxy with every interface of the repository's class.
	 * @param <T> the interface the caller needs
	 * @param type the repository's class
	 * @param factory creates the repository, asking the database for its platform
	 * @return the proxy
	 */
	@SuppressWarnings("unchecked")
	static <T> T create(Class<? extends T> type, Supplier<? extends T> factory) {
		ProxyFactory proxy = new ProxyFactory();
		proxy.setInterfaces(ClassUtils.getAllInterfacesForClass(type));
		proxy.setTargetSource(new DeferredRepository(type, factory));
		return (T) proxy.getProxy(DeferredRepository.class.getClassLoader());
	}

	@Override
	public Class<?> getTargetClass() {
		return this.type;
	}

	@Override
	protected Object createObject() {
		return this.factory.get();
	}

}
