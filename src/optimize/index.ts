// Public exports of src/optimize/ (one line per module).
export {};
