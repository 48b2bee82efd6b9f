/** Workflow and event names: lower-case letters, digits and dashes, starting with a letter, at most 64 characters (the agents' rule). */
export const WORKFLOW_NAME = /^[a-z][a-z0-9-]{0,63}$/;
