package io.github.dbleader.faults;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * How a scenario class shares the machine with the suite's other fork: Failsafe runs the
 * scenario classes in two JVMs at once ({@code fault.forks}, 2 by default), since most of
 * a scenario is waiting for leases to run out. A class that loads the database server on
 * purpose runs {@link Mode#ALONE}; the others {@link Mode#SHARED}, each fork on tables of
 * its own ({@link FaultDatabase#forThisFork()}). {@link ForkLock} enforces it across the
 * JVMs.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(ForkLock.class)
@interface ForkUse {

	/**
	 * @return how the class shares the machine
	 */
	Mode value();

	/** How a class shares the machine with the other fork. */
	enum Mode {

		/** Beside the other fork's shared classes. */
		SHARED,

		/** With nothing running in the other fork. */
		ALONE

	}

}
