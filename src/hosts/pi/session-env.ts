/** What Pi 0.73 sets in its own process, and so in what its extensions and tools start. */
export const SESSION_ENV = ["PI_CODING_AGENT"];
