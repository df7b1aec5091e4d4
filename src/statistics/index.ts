// Public exports of src/statistics/ (one line per module).
export {};
