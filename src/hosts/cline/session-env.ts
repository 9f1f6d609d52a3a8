/** What Cline CLI 3.0.65 sets in the environment of the hooks it runs (observed: docs/hosts-observed.md). */
export const SESSION_ENV = ["CLINE_BUILD_ENV", "CLINE_CONNECTOR_CLI_LAUNCH"];
