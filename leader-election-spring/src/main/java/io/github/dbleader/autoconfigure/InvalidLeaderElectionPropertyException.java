package io.github.dbleader.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at start-up when a {@code leader-election.*} property has a value that cannot
 * work. Carries the property, the value and what is allowed, so that
 * {@code InvalidLeaderElectionPropertyFailureAnalyzer} can tell the user what to change.
 */
public class InvalidLeaderElectionPropertyException extends IllegalStateException {

	private final String property;

	private final @Nullable Object value;

	private final String reason;

	private final String allowed;

	/**
	 * Create an exception.
	 * @param property full property name, e.g. {@code leader-election.lease-duration}
	 * @param value the value given (or derived), {@code null} if none
	 * @param reason what is wrong with it
	 * @param allowed what would be accepted
	 */
	public InvalidLeaderElectionPropertyException(String property, @Nullable Object value, String reason,
			String allowed) {
		super("Invalid value '" + value + "' for property '" + property + "': " + reason + ". Allowed: " + allowed);
		this.property = property;
		this.value = value;
		this.reason = reason;
		this.allowed = allowed;
	}

	/**
	 * Return the full name of the property.
	 * @return the property name
	 */
	public String getProperty() {
		return this.property;
	}

	/**
	 * Return the value that was rejected.
	 * @return the value, or {@code null} if none was set
	 */
	public @Nullable Object getValue() {
		return this.value;
	}

	/**
	 * Return what is wrong with the value.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

	/**
	 * Return a description of the values that are allowed.
	 * @return what is allowed
	 */
	public String getAllowed() {
		return this.allowed;
	}

}
