package io.github.dbleader.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Holds a lock on a file that every fork of the suite sees
 * ({@code target/fault-forks.lock}) while a scenario class runs: shared for
 * {@link ForkUse.Mode#SHARED} classes, exclusive for {@link ForkUse.Mode#ALONE} ones.
 * Within a JVM the file is locked once however many classes hold it (a JVM cannot lock a
 * file twice), and an exclusive holder waits until the JVM's shared holders are done.
 * Classes may start and end on different threads, hence counts under a monitor rather
 * than a thread-owned lock.
 */
final class ForkLock implements BeforeAllCallback, AfterAllCallback {

	private static final Object monitor = new Object();

	private static int shared;

	private static boolean exclusive;

	private static @Nullable FileChannel channel;

	private static @Nullable FileLock lock;

	/**
	 * This JVM's fork number once taken, and the lock that keeps it this JVM's until it
	 * ends.
	 */
	private static int fork;

	private static @Nullable FileLock forkClaim;

	/**
	 * This JVM's number among the suite's JVMs that run at once: the lowest whose lock
	 * file ({@code target/fault-forks/<n>.lock}) no other running JVM holds, taken at
	 * first use and kept until the JVM ends. Failsafe's own fork number only grows across
	 * the build's executions, so it cannot name a fork's database.
	 * @return 1 or more
	 */
	static synchronized int forkNumber() {
		if (fork > 0) {
			return fork;
		}
		Path directory = targetDirectory().resolve("fault-forks");
		try {
			Files.createDirectories(directory);
			for (int number = 1;; number++) {
				FileChannel claim = FileChannel.open(directory.resolve(number + ".lock"), StandardOpenOption.CREATE,
						StandardOpenOption.WRITE);
				FileLock lock = claim.tryLock();
				if (lock != null) {
					forkClaim = lock;
					fork = number;
					return number;
				}
				claim.close();
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not take a fork number in " + directory, ex);
		}
	}

	/**
	 * @return the module's build directory, where every fork of the suite sees the same
	 * files
	 */
	static Path targetDirectory() {
		return Path.of(System.getProperty("fault.work-dir", "target/fault-runs")).toAbsolutePath().getParent();
	}

	/**
	 * Where this fork's processes write their logs and the sample is prepared
	 * ({@code fault.work-dir}, in a directory of its own beyond the first fork): the
	 * forks start processes with the same node ids.
	 * @return the directory
	 */
	static Path workDirectory() {
		Path directory = Path.of(System.getProperty("fault.work-dir", "target/fault-runs")).toAbsolutePath();
		return (forkNumber() > 1) ? directory.resolve("fork" + forkNumber()) : directory;
	}

	@Override
	public void beforeAll(ExtensionContext context) throws InterruptedException {
		acquire(mode(context) == ForkUse.Mode.ALONE);
	}

	@Override
	public void afterAll(ExtensionContext context) {
		release(mode(context) == ForkUse.Mode.ALONE);
	}

	private static ForkUse.Mode mode(ExtensionContext context) {
		ForkUse use = context.getRequiredTestClass().getAnnotation(ForkUse.class);
		return (use != null) ? use.value() : ForkUse.Mode.ALONE;
	}

	private static void acquire(boolean alone) throws InterruptedException {
		synchronized (monitor) {
			while (exclusive || (alone && shared > 0)) {
				monitor.wait();
			}
			if (alone || shared == 0) {
				// First holder in this JVM: lock the file, waiting for the other fork.
				// The
				// monitor is held meanwhile, so no other class of this JVM starts either.
				lockFile(!alone);
			}
			if (alone) {
				exclusive = true;
			}
			else {
				shared++;
			}
		}
	}

	private static void release(boolean alone) {
		synchronized (monitor) {
			if (alone) {
				exclusive = false;
			}
			else {
				shared--;
			}
			if (!exclusive && shared == 0) {
				unlockFile();
			}
			monitor.notifyAll();
		}
	}

	private static void lockFile(boolean sharedLock) {
		Path file = targetDirectory().resolve("fault-forks.lock");
		try {
			Files.createDirectories(file.getParent());
			FileChannel opened = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
					StandardOpenOption.WRITE);
			channel = opened;
			lock = opened.lock(0, Long.MAX_VALUE, sharedLock);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not lock " + file + " against the suite's other fork", ex);
		}
	}

	private static void unlockFile() {
		try {
			if (lock != null) {
				lock.release();
			}
			if (channel != null) {
				channel.close();
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		finally {
			lock = null;
			channel = null;
		}
	}

}
