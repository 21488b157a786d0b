package io.github.dbleader.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Qualifier for the {@link javax.sql.DataSource DataSource} that leader election runs on,
 * when the application has several: the lease tables, the election's statements and the
 * fenced transactions then use it, rather than the {@code @Primary} one.
 * {@code leader-election.jdbc.url}, when set, takes precedence.
 */
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface LeaderElectionDataSource {

}
