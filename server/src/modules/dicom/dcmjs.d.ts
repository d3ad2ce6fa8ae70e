/** The few parts of dcmjs (no bundled types) this module uses. */
declare module 'dcmjs' {
  interface DictElement {
    vr: string;
    Value?: unknown[];
  }
  class DicomDict {
    constructor(meta: Record<string, DictElement>);
    meta: Record<string, DictElement>;
    dict: Record<string, DictElement>;
    write(options?: Record<string, unknown>): ArrayBuffer;
  }
  const dcmjs: {
    data: {
      DicomMessage: { readFile(buffer: ArrayBuffer, options?: Record<string, unknown>): DicomDict };
      DicomDict: typeof DicomDict;
      /** The standard data dictionary, by '(GGGG,EEEE)'; `vr` as the standard gives it ('xs', 'ox' for ambiguous ones). */
      DicomMetaDictionary: { dictionary: Record<string, { vr?: string } | undefined> };
    };
    log: { setLevel(level: string): void };
  };
  export default dcmjs;
}
