import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { HarnessError } from '../../base/index.ts';

export function findOnPath(command: string, pathVariable = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathVariable.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

export const ZOOKEEPER_JAR = () => process.env.ZOOKEEPER_JAR ?? '/usr/share/java/zookeeper.jar';

/** What the embedded backend needs from Debian, checked before anything starts. */
export function embeddedPreflight(): { java: string; zookeeperJar: string } {
  const java = findOnPath('java');
  if (java === undefined) {
    throw new HarnessError(
      'JAVA_MISSING',
      'java is not installed (ZooKeeper needs it): `apt-get install default-jre-headless`',
    );
  }
  const zookeeperJar = ZOOKEEPER_JAR();
  if (!existsSync(zookeeperJar)) {
    throw new HarnessError(
      'ZOOKEEPER_MISSING',
      `ZooKeeper is not installed (${zookeeperJar} not found): \`apt-get install zookeeper\``,
    );
  }
  return { java, zookeeperJar };
}
