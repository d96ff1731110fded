import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * The order `npm test` starts its files in, for two workers on two cores. vitest's own order runs
 * the projects one after the other by name, so infra came first, its files holding both workers
 * while they waited for the app's synthesis (about 100 s); and in a clean clone, with no timings
 * cached, a file's size decides, so the longest integration file could start last and keep one
 * worker busy long after the other ran out. Here: the files that take longest first (their usual
 * seconds on CI's machine beside them), then the integration files, infra (its synthesis, run in
 * its own process from the start by test/support/infra-synthesis-setup.ts, has finished by then),
 * browser and unit, the short ones that fill the end; within each, vitest's order (timings, when
 * a local run cached them).
 */
const LONGEST_FIRST = [
  'test/integration/load.test.ts', // 145 s: up to 10,000 requests in at most 90 s, then heap checks
  'test/integration/local-server-lifecycle.test.ts', // 95 s: servers started and stopped
  'test/integration/platform-events.model.test.ts', // 55 s
  'test/integration/local-servers-together.test.ts', // 55 s
  'test/integration/key-lifecycle.model.test.ts', // 50 s
  'test/integration/agreements.test.ts', // 50 s
];
const PROJECTS = ['integration', 'infra', 'browser', 'unit'];

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const vitestOrder = await super.sort(files);
    const position = new Map(vitestOrder.map((file, index) => [file, index]));
    const rank = (file: TestSpecification) => {
      const longest = LONGEST_FIRST.findIndex((path) => file.moduleId.endsWith(path));
      if (longest >= 0) return longest;
      const project = PROJECTS.indexOf(file.project.name);
      return LONGEST_FIRST.length + (project >= 0 ? project : PROJECTS.length);
    };
    return [...vitestOrder].sort(
      (a, b) => rank(a) - rank(b) || (position.get(a) ?? 0) - (position.get(b) ?? 0),
    );
  }
}
