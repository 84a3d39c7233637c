/**
 * An application's tsconfig.json as the README's Requirements set it up (NodeNext, strict), only
 * checking: what the tests that type-check an application against the built package start from.
 */
export const APPLICATION_COMPILER_OPTIONS = {
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  target: 'ES2022',
  strict: true,
  noEmit: true,
} as const;
