// Public exports of src/models/ (one line per module).
export {};
