import { describe, expect, it } from 'vitest';
import { type DicomJson, instanceOf, slicePositionText, sortInstances, stackSlices } from './series-instances';
import { qidoInstance } from './series-testing';

const sops = (json: DicomJson[]) => sortInstances(json.map((j) => instanceOf(j)!)).map((i) => i.sopInstanceUid);

describe('stack order (docs/product.md › Stack viewer)', () => {
  it('sorts by Instance Number first', () => {
    expect(sops([qidoInstance('c', 3), qidoInstance('a', 1), qidoInstance('b', 2)])).toEqual(['a', 'b', 'c']);
  });

  it('then by position along the slice normal, then by Slice Location, then by SOP UID; instances without a number last', () => {
    expect(
      sops([
        qidoInstance('z2', 5, { z: 20 }),
        qidoInstance('z1', 5, { z: -10 }),
        qidoInstance('loc', 5, { location: 3 }),
        qidoInstance('none-b', null),
        qidoInstance('none-a', null),
        qidoInstance('first', 1, { z: 99 }),
      ]),
    ).toEqual(['first', 'z1', 'z2', 'loc', 'none-a', 'none-b']);
  });

  it('reads numbers sent as strings (IS and DS may come as text) and ignores an instance without SOP UID', () => {
    const json: DicomJson = {
      '00080018': { Value: ['x'] },
      '00200013': { Value: ['7'] },
      '00201041': { Value: ['-2.5'] },
    };
    expect(instanceOf(json)).toMatchObject({ instanceNumber: 7, sliceLocation: -2.5 });
    expect(instanceOf({ '00200013': { Value: [1] } })).toBeNull();
  });

  it('gives each frame of a multi-frame instance its own slice', () => {
    const list = sortInstances([instanceOf(qidoInstance('a', 1))!, instanceOf(qidoInstance('m', 2, { frames: 3 }))!]);
    expect(stackSlices(list).map((s) => `${s.instance.sopInstanceUid}#${s.frame}`)).toEqual([
      'a#1',
      'm#1',
      'm#2',
      'm#3',
    ]);
  });

  it('says where the slice is: "12 / 300", the frame of a multi-frame instance, and the Slice Location when present', () => {
    const list = stackSlices([
      instanceOf(qidoInstance('a', 1, { location: -45.46 }))!,
      instanceOf(qidoInstance('m', 2, { frames: 2 }))!,
    ]);
    expect(slicePositionText(0, list)).toBe('1 / 3 · Slice -45.5 mm');
    expect(slicePositionText(2, list)).toBe('3 / 3 · Frame 2/2');
  });
});
