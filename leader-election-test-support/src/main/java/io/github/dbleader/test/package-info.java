/**
 * The test rig shared by every module's tests: the
 * {@link io.github.dbleader.test.TestDatabase}s the integration tests run against, a
 * {@link io.github.dbleader.test.TcpProxy} that brings network faults between a node and
 * its database, and a {@link io.github.dbleader.test.NodeProcess} that runs a node as a
 * process of its own and sends it signals. It does not depend on the library, so the
 * library's own tests can use it.
 */
@NullMarked
package io.github.dbleader.test;

import org.jspecify.annotations.NullMarked;
