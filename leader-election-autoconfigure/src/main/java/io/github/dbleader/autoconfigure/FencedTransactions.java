package io.github.dbleader.autoconfigure;

import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;

/**
 * Chooses the transaction manager of fenced work. The fence row lives with the leases, so
 * a fenced transaction must be a transaction on the election's {@code DataSource}: one
 * opened by a manager of another {@code DataSource} would take its share lock outside the
 * transaction and fence nothing. In order:
 * <ol>
 * <li>for a {@code DataSource} built from {@code leader-election.jdbc.url}, which no
 * application bean manages, a {@link DataSourceTransactionManager} of the starter's own;
 * <li>the one transaction manager bean that manages the election's {@code DataSource};
 * <li>the single or primary transaction manager bean, unless it manages another
 * {@code DataSource}, in which case start-up fails
 * ({@link FencedTransactionManagerMismatchException});
 * <li>without such a bean, a {@link DataSourceTransactionManager} of the starter's own.
 * </ol>
 * A manager whose {@code DataSource} is not known (JTA, for instance) is trusted.
 */
final class FencedTransactions {

	private FencedTransactions() {
	}

	static PlatformTransactionManager determineTransactionManager(ElectionDataSource electionDataSource,
			ObjectProvider<PlatformTransactionManager> transactionManagers, ListableBeanFactory beanFactory) {
		DataSource dataSource = electionDataSource.getDataSource();
		if (electionDataSource.isOwn()) {
			return new DataSourceTransactionManager(dataSource);
		}
		List<PlatformTransactionManager> managing = transactionManagers.orderedStream()
			.filter((candidate) -> manages(candidate, dataSource))
			.toList();
		if (managing.size() == 1) {
			return managing.get(0);
		}
		PlatformTransactionManager unique = transactionManagers.getIfUnique();
		if (unique == null) {
			return new DataSourceTransactionManager(dataSource);
		}
		DataSource managed = managedDataSource(unique);
		if (managed != null && !same(managed, dataSource)) {
			throw new FencedTransactionManagerMismatchException(
					nameOf(beanFactory, PlatformTransactionManager.class, unique),
					nameOf(beanFactory, DataSource.class, managed), nameOf(beanFactory, DataSource.class, dataSource));
		}
		return unique;
	}

	private static boolean manages(PlatformTransactionManager transactionManager, DataSource dataSource) {
		DataSource managed = managedDataSource(transactionManager);
		return managed != null && same(managed, dataSource);
	}

	/**
	 * Return the {@code DataSource} a transaction manager binds connections of: the
	 * resource factory of a {@code DataSourceTransactionManager}, the {@code dataSource}
	 * property of JPA's or Hibernate's.
	 * @param transactionManager the transaction manager
	 * @return its data source, or {@code null} if not known
	 */
	static @Nullable DataSource managedDataSource(PlatformTransactionManager transactionManager) {
		try {
			if (transactionManager instanceof ResourceTransactionManager resource
					&& resource.getResourceFactory() instanceof DataSource dataSource) {
				return dataSource;
			}
			BeanWrapper properties = new BeanWrapperImpl(transactionManager);
			if (properties.isReadableProperty("dataSource")
					&& properties.getPropertyValue("dataSource") instanceof DataSource dataSource) {
				return dataSource;
			}
		}
		catch (RuntimeException ex) {
			// No data source set yet, or a property that cannot be read: not known.
		}
		return null;
	}

	private static boolean same(DataSource managed, DataSource dataSource) {
		// DataSourceTransactionManager unwraps a TransactionAwareDataSourceProxy it is
		// given.
		return unwrap(managed) == unwrap(dataSource);
	}

	private static DataSource unwrap(DataSource dataSource) {
		return (dataSource instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null)
				? proxy.getTargetDataSource() : dataSource;
	}

	private static <T> String nameOf(ListableBeanFactory beanFactory, Class<T> type, T instance) {
		for (Map.Entry<String, T> bean : beanFactory.getBeansOfType(type, false, false).entrySet()) {
			if (bean.getValue() == instance || (instance instanceof DataSource dataSource
					&& bean.getValue() instanceof DataSource candidate && same(candidate, dataSource))) {
				return "'" + bean.getKey() + "'";
			}
		}
		return instance.toString();
	}

}
