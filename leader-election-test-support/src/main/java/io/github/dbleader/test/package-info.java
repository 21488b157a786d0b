/**
 * The test rig shared by every module's tests: the {@link io.github.dbleader.test.TestDatabase}s
 * the integration tests run against, and a {@link io.github.dbleader.test.TcpProxy} that cuts
 * a node off from its database. It does not depend on the library, so the library's own
 * tests can use it.
 */
@NullMarked
package io.github.dbleader.test;

import org.jspecify.annotations.NullMarked;
