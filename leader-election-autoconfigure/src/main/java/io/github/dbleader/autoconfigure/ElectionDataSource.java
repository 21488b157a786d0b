package io.github.dbleader.autoconfigure;

import javax.sql.DataSource;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.util.StringUtils;

/**
 * The {@link DataSource} chosen for the election: one of its own built from
 * {@code leader-election.jdbc.url}, else the
 * {@link LeaderElectionDataSource @LeaderElectionDataSource} bean, else the application's
 * single or primary {@code DataSource}. The schema, the dialect, the election's
 * connections and the fenced transactions all use it. Like
 * {@link ElectionConnectionPool}, deliberately not a {@code DataSource} bean. A
 * {@code DataSource} built from the URL is closed when the context closes, after the
 * election service stopped and released its leases.
 */
final class ElectionDataSource implements DisposableBean {

	private final DataSource dataSource;

	private final boolean own;

	private ElectionDataSource(DataSource dataSource, boolean own) {
		this.dataSource = dataSource;
		this.own = own;
	}

	/**
	 * Choose the election's data source.
	 * @param jdbc the properties of the election's connections
	 * @param qualified the {@code @LeaderElectionDataSource} beans
	 * @param dataSources all {@code DataSource} beans
	 * @return the chosen data source
	 * @throws IllegalStateException if none can be chosen
	 */
	static ElectionDataSource determine(LeaderElectionProperties.Jdbc jdbc, ObjectProvider<DataSource> qualified,
			ObjectProvider<DataSource> dataSources) {
		if (StringUtils.hasText(jdbc.getUrl())) {
			// The builder creates the pool with setters, so it stays lazy: no connection
			// and no thread before the first statement.
			DataSource own = DataSourceBuilder.create()
				.url(jdbc.getUrl())
				.username(jdbc.getUsername())
				.password(jdbc.getPassword())
				.build();
			return new ElectionDataSource(own, true);
		}
		DataSource chosen = qualified.getIfAvailable();
		if (chosen == null) {
			chosen = dataSources.getIfUnique();
		}
		if (chosen == null) {
			// The auto-configuration's condition makes this unreachable.
			throw new IllegalStateException("No DataSource for leader election");
		}
		return new ElectionDataSource(chosen, false);
	}

	DataSource getDataSource() {
		return this.dataSource;
	}

	/**
	 * Whether the data source was built from {@code leader-election.jdbc.url}, so that no
	 * transaction manager of the application manages it.
	 * @return whether the data source is the starter's own
	 */
	boolean isOwn() {
		return this.own;
	}

	@Override
	public void destroy() throws Exception {
		if (this.own && this.dataSource instanceof AutoCloseable closeable) {
			closeable.close();
		}
	}

}
