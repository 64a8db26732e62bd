// Reading untrusted JSON input: integers past 2^53 kept exact, and zod's issues as `field: message`.
export { type InputIssue, describeIssues, inputIssues } from './describe-issues';
export { parseJsonExact } from './parse-json-exact';
export { InvalidEnvironmentError, portSetting, readEnvironment } from './read-environment';
