/**
 * The lease statements on a relational database through Spring's {@code JdbcTemplate}:
 * {@link io.github.dbleader.election.jdbc.JdbcLeaseRepository}, one
 * {@link io.github.dbleader.election.jdbc.SqlDialect} per platform, and the schema
 * scripts.
 */
@NullMarked
package io.github.dbleader.election.jdbc;

import org.jspecify.annotations.NullMarked;
