package io.github.dbleader.autoconfigure.health;

import java.util.List;
import java.util.stream.StreamSupport;

import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.NamedContributor;

/**
 * The names of a composite's entries, in order: Spring Boot 3's form of the test class of
 * the same name in leader-election-autoconfigure (Boot 3 iterates a composite's entries).
 */
final class EntryNames {

	private EntryNames() {
	}

	static List<String> of(CompositeHealthContributor contributor) {
		return StreamSupport.stream(contributor.spliterator(), false).map(NamedContributor::getName).toList();
	}

}
