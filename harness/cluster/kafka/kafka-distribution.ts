import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError, PROJECT_ROOT } from '../../base/index.ts';
import { findOnPath } from '../embedded/preflight.ts';

/** The broker's version, pinned in `pom.xml` beside this file. */
export const KAFKA_VERSION = '4.1.1';
export const KAFKA_LIB = join(PROJECT_ROOT, 'harness', 'cluster', 'kafka', 'lib');

/** Names a directory of Kafka jars of the user's own (a distribution's `libs/`) instead of setup's. */
export const KAFKA_LIB_ENV = 'CHAOS_KAFKA_LIB';

/**
 * The classpath of the broker that `scripts/setup.sh` fetched through Maven, or one line saying
 * what is missing (`KAFKA_MISSING`): checked before a cluster with brokers starts anything.
 */
export function kafkaClasspath(lib = process.env[KAFKA_LIB_ENV] || KAFKA_LIB): string {
  const jar = `kafka_2.13-${KAFKA_VERSION}.jar`;
  if (!existsSync(lib) || !readdirSync(lib).includes(jar))
    throw new HarnessError(
      'KAFKA_MISSING',
      `the Kafka ${KAFKA_VERSION} broker is not installed (${join(lib, jar)} not found): run scripts/setup.sh, which fetches it with Maven`,
    );
  return join(lib, '*');
}

/** The java that runs the brokers (the binary backend has no ZooKeeper preflight to find it). */
export function javaForKafka(): string {
  const java = findOnPath('java');
  if (java === undefined)
    throw new HarnessError(
      'JAVA_MISSING',
      'java is not installed (the Kafka broker needs it): `apt-get install default-jre-headless`',
    );
  return java;
}
