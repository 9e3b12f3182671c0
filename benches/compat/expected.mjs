export const EXPECTED = {};
