/**
 * The configuration SandboxFusion's jest runner links beside the test (its runtime/node `package.json` and
 * `babel.config.js`), as Fusebox writes it: jest with two workers and a JSON report in `jest-report.json`
 * (AutoEval's jest problems fetch it), and babel compiling TypeScript and modern JavaScript for this Node.
 */
export const JEST_CONFIG_FILES: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify(
    {
      name: 'coderunner',
      private: true,
      jest: { maxWorkers: 2, testResultsProcessor: 'jest-json-reporter' },
      jestJsonReporter: { outputFile: 'jest-report.json' },
    },
    null,
    2,
  )}\n`,
  'babel.config.js': `module.exports = {
  presets: [['@babel/preset-env', { targets: { node: 'current' } }], '@babel/preset-typescript'],
};
`,
};
