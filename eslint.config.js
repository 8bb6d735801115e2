import js from "@eslint/js";
import tseslint from "typescript-eslint";

/**
 * Postgres connections are made and checked out in packages/platform/src/database.ts only
 * (createPool, checkout, connectClient, plainPool), each with its error listener: a pg client
 * that loses its server emits 'error', and one nobody listens to kills the process (issue 29).
 */
const pgSelectors = [
  {
    selector: "CallExpression[callee.property.name='connect'][arguments.length=0]",
    message:
      "Check a Postgres connection out with checkout(pool) or connectClient(config) from @argus/platform: they attach the error listener a checked-out client needs.",
  },
  {
    selector:
      "NewExpression[callee.object.name='pg'][callee.property.name=/^(Pool|Client)$/], NewExpression[callee.name=/^(Pool|Client)$/]",
    message:
      "Make pools and clients with createPool, plainPool or connectClient from @argus/platform: they attach the error listener every pg connection needs.",
  },
];
export const pgConnectionRules = { "no-restricted-syntax": ["error", ...pgSelectors] };

// Deciders and the pure rules they use decide from the command and the state alone: no
// database, no rows or projections, no store at run time, no clock or randomness of their own
// (time and ids come in the command).
const pureDomain = {
  files: ["services/*/src/**/*Decider.ts", "services/*/src/**/*Rules.ts"],
  rules: {
    "@typescript-eslint/no-restricted-imports": [
      "error",
      {
        paths: [
          { name: "pg", message: "a decider is pure: no database" },
          {
            name: "@argus/eventstore",
            allowTypeImports: true,
            message: "a decider imports only the store's types",
          },
          { name: "@argus/service-host", message: "a decider knows no service host" },
          { name: "@grpc/grpc-js", message: "a decider knows no transport" },
        ],
        patterns: [
          {
            regex: "(Rows|Projection|Queries|Query|Commands|Command|Directory|Consumer|Port)\\.ts$",
            message: "a decider reads no rows, projections, queries or other services",
          },
          { regex: "/(deps|service|projection)\\.ts$", message: "a decider knows no wiring" },
          { regex: "^@nats-io/", message: "a decider knows no messaging" },
        ],
      },
    ],
    "no-restricted-syntax": [
      "error",
      {
        selector: "NewExpression[callee.name='Date'][arguments.length=0]",
        message: "a decider takes time from its command",
      },
      {
        selector: "MemberExpression[object.name='Date'][property.name='now']",
        message: "a decider takes time from its command",
      },
      {
        selector: "MemberExpression[object.name='Math'][property.name='random']",
        message: "a decider takes ids and chances from its command",
      },
      {
        selector: "CallExpression[callee.name=/^(randomUUID|randomBytes|uuidv7)$/]",
        message: "a decider takes ids from its command",
      },
      // A later block's no-restricted-syntax replaces an earlier one's: keep the pg rule too.
      ...pgSelectors,
    ],
  },
};

// Rules that read types: a promise is awaited, handled or voided on purpose; an async function
// is not handed where a callback's result is ignored; a switch over a union names every member
// (or says what its default stands for). They cover every .ts file of tsconfig.json: product
// code, tests, scripts and bench. require-await stays off: an async function without await is
// how this code satisfies a promise-returning contract and turns a throw into a rejection.
const typeAware = {
  files: ["**/*.ts"],
  languageOptions: {
    parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
  },
  rules: {
    "@typescript-eslint/no-floating-promises": "error",
    "@typescript-eslint/no-misused-promises": "error",
    "@typescript-eslint/await-thenable": "error",
    "@typescript-eslint/switch-exhaustiveness-check": [
      "error",
      { considerDefaultExhaustiveForUnions: true },
    ],
    "@typescript-eslint/no-unnecessary-type-assertion": "error",
  },
};

export default tseslint.config(
  { ignores: ["**/node_modules/**", ".tools/**", "packages/proto/src/**", "**/dist/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    // Everything that runs in a deployment or under ./argus: tests and benchmarks may hold raw
    // connections (a lock held on purpose, a fixture's pool).
    files: [
      "packages/*/src/**/*.ts",
      "services/*/src/**/*.ts",
      "scripts/**/*.ts",
      "test/soak/**/*.ts",
    ],
    ignores: ["packages/platform/src/database.ts"],
    rules: pgConnectionRules,
  },
  typeAware,
  pureDomain,
);
